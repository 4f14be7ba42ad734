import sys, time, resource
sys.path.insert(0, "/work/main/scripts")
import prob_bench as pb
name = sys.argv[1]
t = time.perf_counter()
m = pb.build(sys.argv[2], name, ".")
print(name, m.nr_states, m.nr_transitions, "build", time.perf_counter() - t, flush=True)
t = time.perf_counter()
pb.export_umb(m, f"{name}.umb")
print("export", time.perf_counter() - t, "maxrss_gb", resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e6, flush=True)
