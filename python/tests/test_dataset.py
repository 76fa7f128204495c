"""RecordDataset over the fake C layer: records across chunk boundaries,
streams interleaved, batches, spills under a small quota."""
import collections
import gc
import warnings

import pytest

import devtcp
from fakecapi import FakeApi, pattern

np = pytest.importorskip("numpy")


def script(f, streams, chunk=1000, interleave=True):
    """streams: {sid: payload}; DATA of the streams interleaved."""
    for sid in streams:
        f.open(sid)
    pos = {sid: 0 for sid in streams}
    while any(pos[s] < len(p) for s, p in streams.items()):
        for sid, p in streams.items():
            if pos[sid] < len(p):
                f.data(sid, p[pos[sid]:pos[sid] + chunk], chunk)
                pos[sid] += chunk
    for sid in streams:
        f.fin(sid)
    f.shutdown = True   # then the "server" goes away: the iteration ends


def expected(streams, N):
    c = collections.Counter()
    for p in streams.values():
        for i in range(len(p) // N):
            c[p[i * N:(i + 1) * N]] += 1
    return c


def to_bytes(r):
    if hasattr(r, "numpy"):
        r = r.numpy()
    return bytes(r)


@pytest.mark.parametrize("output", ["numpy", "torch"])
@pytest.mark.parametrize("batch", [None, 4])
def test_records_span_chunks(output, batch):
    if output == "torch":
        pytest.importorskip("torch")
    streams = {1: pattern(0, 7000), 2: pattern(10 ** 6, 7700)}
    N = 700
    f = FakeApi()
    script(f, streams)
    ds = devtcp.RecordDataset("/fake.sock", 5001, N, batch_size=batch,
                              output=output, api=f)
    got = collections.Counter()
    shapes = []
    for r in ds:
        if batch is None:
            assert tuple(r.shape) == (N,)
            got[to_bytes(r)] += 1
        else:
            shapes.append(tuple(r.shape))
            for row in r:
                got[to_bytes(row)] += 1
    assert got == expected(streams, N)
    assert ds.stats["records"] == 21 and ds.stats["streams"] == 2
    if batch:
        assert shapes == [(4, N)] * 5 + [(1, N)]
    gc.collect()
    assert f.detached and f.bad_releases == []


def test_partial_record_dropped_with_warning_and_reoffer_skip():
    f = FakeApi()
    f.open(1)
    f.data(1, pattern(0, 2500), 1000)    # 2 records of 1000 and 500 left
    f.fin(1)
    f.open(2, reoffered=True, stream_offset=1300)   # next boundary at 2000
    f.data(2, pattern(1300, 2700), 900)
    f.fin(2)
    f.shutdown = True
    ds = devtcp.RecordDataset("/fake.sock", 5001, 1000, output="numpy", api=f)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        recs = [bytes(r) for r in ds]
    assert sorted(recs) == sorted([pattern(0, 1000), pattern(1000, 1000),
                                   pattern(2000, 1000), pattern(3000, 1000)])
    assert ds.stats["dropped_partial"] == 1
    assert any("ended inside a record" in str(x.message) for x in w)


@pytest.mark.parametrize("output", ["numpy", "torch"])
def test_small_quota_spills(output):
    """Records and batches far bigger than the quota still complete: held
    chunks are copied to staging when nothing else arrives."""
    if output == "torch":
        pytest.importorskip("torch")
    streams = {1: pattern(0, 40000), 2: pattern(5 * 10 ** 5, 40000)}
    f = FakeApi(ring_size=3)
    script(f, streams, chunk=1000)
    ds = devtcp.RecordDataset("/fake.sock", 5001, 8000, batch_size=3,
                              output=output, api=f)
    got = collections.Counter()
    for b in ds:
        for row in b:
            got[to_bytes(row)] += 1
    assert got == expected(streams, 8000)
    assert f.bad_releases == []


def test_max_records_and_idle_timeout():
    f = FakeApi()
    f.open(1)
    f.data(1, pattern(0, 10000), 1000)
    ds = devtcp.RecordDataset("/fake.sock", 5001, 100, output="numpy",
                              max_records=7, api=f)
    assert [bytes(r) for r in ds] == [pattern(i * 100, 100) for i in range(7)]
    f2 = FakeApi()
    f2.open(1)
    f2.data(1, pattern(0, 1000), 1000)
    ds2 = devtcp.RecordDataset("/fake.sock", 5001, 100, output="numpy",
                               idle_timeout=0.2, api=f2)
    assert len(list(ds2)) == 10


def test_torch_dataloader_and_shard_names(monkeypatch):
    torch = pytest.importorskip("torch")
    from torch.utils.data import DataLoader, IterableDataset
    streams = {1: pattern(0, 6400)}
    f = FakeApi()
    script(f, streams)
    ds = devtcp.RecordDataset("/run/gpu{local_rank}.sock", 5001, 64,
                              batch_size=10, api=f, name="job")
    assert isinstance(ds, IterableDataset)
    monkeypatch.setenv("RANK", "3")
    monkeypatch.setenv("LOCAL_RANK", "1")
    assert ds.socket_path() == "/run/gpu1.sock"
    assert ds.client_name() == "job-r3w0"
    total = 0
    for b in DataLoader(ds, batch_size=None):
        assert b.dtype == torch.uint8 and b.shape[1] == 64
        total += b.shape[0]
    assert total == 100
