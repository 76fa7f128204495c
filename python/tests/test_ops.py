"""The batched copies (numpy and torch) on the CPU, including the indexed
gather a GPU region uses, run here on CPU tensors."""
import pytest

from devtcp import _ops

np = pytest.importorskip("numpy")


def cases():
    rng = np.random.default_rng(1)
    # chunk-like: 8-aligned offsets and lengths (word 8), odd ones (word 1),
    # 4-aligned (word 4), a single piece, zero-length neighbours excluded
    yield np.arange(0, 64 * 2048, 2048, dtype=np.int64), \
        np.full(64, 1448, np.int64)
    yield np.array([3, 5000, 9001], np.int64), np.array([1, 777, 4], np.int64)
    yield np.array([4, 4096, 8200], np.int64), np.array([12, 1444, 4], np.int64)
    yield np.array([100], np.int64), np.array([2000], np.int64)
    offs = rng.integers(0, 200000, 50).astype(np.int64)
    yield offs, rng.integers(1, 3000, 50).astype(np.int64)


@pytest.mark.parametrize("k", range(5))
def test_gather(k):
    offs, lens = list(cases())[k]
    region = np.random.default_rng(k).integers(0, 256, 1 << 18,
                                               dtype=np.uint8)
    want = np.concatenate([region[o:o + n] for o, n in zip(offs, lens)])
    out = np.zeros(want.shape[0] + 16, np.uint8)
    _ops.NumpyOps().gather(out[8:8 + want.shape[0]], region, offs, lens)
    assert np.array_equal(out[8:8 + want.shape[0]], want)
    assert not out[:8].any() and not out[8 + want.shape[0]:].any()
    torch = pytest.importorskip("torch")
    rt = torch.from_numpy(region)
    for at in (0, 8, 3):          # aligned and unaligned destinations
        dest = torch.zeros(want.shape[0] + 16, dtype=torch.uint8)
        _ops.gather_indexed(dest[at:at + want.shape[0]], rt, offs, lens)
        assert np.array_equal(dest[at:at + want.shape[0]].numpy(), want)
        assert int(dest[:at].sum()) == 0
        assert int(dest[at + want.shape[0]:].sum()) == 0
        dest2 = torch.zeros(want.shape[0], dtype=torch.uint8)
        _ops.TorchOps("cpu").gather(dest2, rt, offs, lens)
        assert np.array_equal(dest2.numpy(), want)
