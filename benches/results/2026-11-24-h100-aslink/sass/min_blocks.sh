# ASLink & two nets: default kernels against MIN_BLOCKS for 24 warps (kernels from .device/kmb3), largest table, no traces
for run in 1 2 3; do
 for v in default mb3; do
  for m in ASLink-PT-01a AutoFlight-PT-05a DES-PT-01a; do
   if [ $v = mb3 ]; then export WARPCHECK_KERNEL_DIR=.device/kmb3; else unset WARPCHECK_KERNEL_DIR; fi
   .device/warpcheck check .device/aslink/$m/model.pnml --engine gpu --no-trace --deadlock --all --initial-table 4T --format json -q > /tmp/r.json
   python3 -c "import json; r=json.load(open('/tmp/r.json')); print('$m\t$v\t$run\t%d\t%d\t%.3f\t%s' % (r['states'], r['transitions'], r['search_seconds'], r['engine']))"
  done
 done
done
