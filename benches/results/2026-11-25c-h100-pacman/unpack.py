# Rebuilds a UMB archive from the arrays pack.py wrote (see pack.py), checking every member's sha256.
import tarfile, numpy as np, sys, os, io, hashlib, json, glob
src_dir, umb = sys.argv[1], sys.argv[2]
man = json.load(open(src_dir + '/manifest.json'))
def u8(name):
    return np.fromfile(os.path.join(src_dir, name), dtype=np.uint8)
def offsets(name):
    d = u8(name).astype(np.uint64)
    out = np.zeros(len(d) + 1, dtype=np.uint64); np.cumsum(d, out=out[1:]); return out
sc = offsets('sc.u8'); cb = offsets('cb.u8')
per_state = np.diff(cb[sc]).astype(np.int64)
delta = np.frombuffer(b''.join(open(f, 'rb').read() for f in sorted(glob.glob(src_dir + '/target-delta.i4.part*')) if not f.endswith('.xz')), dtype='<i4')
tg = (np.repeat(np.arange(len(sc) - 1, dtype=np.int64), per_state) + delta).astype('<u8')
del delta
vals = np.fromfile(src_dir + '/prob-values.u8x8', dtype='<u8')
idx_file = glob.glob(src_dir + '/prob-index.u[12]')[0]
idx = np.fromfile(idx_file, dtype='<u2' if idx_file.endswith('u2') else 'u1')
pr = vals[idx]
data = {'state-to-choices.bin': sc.astype('<u8').tobytes(), 'choice-to-branches.bin': cb.astype('<u8').tobytes(),
        'branch-to-target.bin': tg.tobytes(), 'branch-to-probability.bin': pr.tobytes()}
with tarfile.open(umb, 'w', format=tarfile.USTAR_FORMAT) as tf:
    for name, is_dir, size in man['order']:
        info = tarfile.TarInfo(name)
        if is_dir:
            info.type = tarfile.DIRTYPE; info.mode = 0o777; tf.addfile(info); continue
        if name in data: b = data[name]
        elif os.path.exists(os.path.join(src_dir, 'raw-' + name.replace('/', '__'))): b = open(os.path.join(src_dir, 'raw-' + name.replace('/', '__')), 'rb').read()
        else: b = open(os.path.join(src_dir, 'bits-' + name.replace('/', '__')), 'rb').read()
        assert len(b) == size, (name, len(b), size)
        assert hashlib.sha256(b).hexdigest() == man['sha256'][name], name
        info.size = size; info.mode = 0o777; tf.addfile(info, io.BytesIO(b))
print('rebuilt', umb, 'all', len(man['sha256']), 'members match their sha256')
