# Packs a UMB (uncompressed tar) of an MDP into small delta/dictionary-coded arrays for carrying.
import tarfile, numpy as np, sys, os, hashlib, json
umb, out = sys.argv[1], sys.argv[2]
os.makedirs(out, exist_ok=True)
tf = tarfile.open(umb)
members = tf.getmembers()
def arr(name, dt):
    m = next(x for x in members if x.name == name)
    return np.memmap(umb, dtype=dt, mode='r', offset=m.offset_data, shape=(m.size // np.dtype(dt).itemsize,))
manifest = {"order": [], "sha256": {}}
for m in members:
    manifest["order"].append([m.name, m.isdir(), m.size])
    if m.isfile():
        h = hashlib.sha256()
        with open(umb, 'rb') as f:
            f.seek(m.offset_data); left = m.size
            while left:
                b = f.read(min(left, 1 << 26)); h.update(b); left -= len(b)
        manifest["sha256"][m.name] = h.hexdigest()
        if m.size < (1 << 20):
            with open(os.path.join(out, 'raw-' + m.name.replace('/', '__')), 'wb') as g:
                g.write(tf.extractfile(m).read())
sc = np.asarray(arr('state-to-choices.bin', '<u8'))
cb = np.asarray(arr('choice-to-branches.bin', '<u8'))
d1 = np.diff(sc); assert sc[0] == 0 and d1.max() < 256; d1.astype(np.uint8).tofile(out + '/sc.u8')
d2 = np.diff(cb); assert cb[0] == 0 and d2.max() < 256; d2.astype(np.uint8).tofile(out + '/cb.u8')
per_state = np.diff(cb[sc]).astype(np.int64)
src = np.repeat(np.arange(len(sc) - 1, dtype=np.int64), per_state)
tg = np.asarray(arr('branch-to-target.bin', '<u8')).astype(np.int64)
delta = tg - src
print('delta range', delta.min(), delta.max())
assert -2**31 <= delta.min() and delta.max() < 2**31
delta.astype('<i4').tofile(out + '/target-delta.i4')
pr = np.asarray(arr('branch-to-probability.bin', '<f8'))
vals, idx = np.unique(pr.view('<u8'), return_inverse=True)
print('distinct probabilities', len(vals))
assert len(vals) < 65536
vals.tofile(out + '/prob-values.u8x8')
idx.astype('<u2' if len(vals) > 255 else 'u1').tofile(out + '/prob-index.' + ('u2' if len(vals) > 255 else 'u1'))
for name in ['state-is-initial.bin'] + [m.name for m in members if m.name.endswith('values.bin')]:
    a = np.asarray(arr(name, 'u1')); a.tofile(out + '/bits-' + name.replace('/', '__'))
json.dump(manifest, open(out + '/manifest.json', 'w'), indent=1)
