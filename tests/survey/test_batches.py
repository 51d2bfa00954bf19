"""How the diff stage cuts its pending pairs into batches: whole servers,
each pair once in order, and shrinking batches at the end, so the survey
and its pool workers finish together."""

from mcpdelta.survey.diffstage import MIN_BATCH, _batches


def _pairs(servers, each):
    return [{"server_id": f"s{s:03d}", "n": n} for s in range(servers) for n in range(each)]


def test_batches_hold_whole_servers_and_every_pair_once_in_order():
    pairs = _pairs(37, 7)
    batches = list(_batches(pairs, 60, workers=2))
    assert [p for b in batches for p in b] == pairs
    homes = {}
    for i, batch in enumerate(batches):
        for pair in batch:
            assert homes.setdefault(pair["server_id"], i) == i


def test_the_last_rounds_shrink_to_a_share_of_what_is_left():
    # 1,000 pairs in servers of 10, batches of 200, two processes: a batch
    # is at most a quarter of what is left, never under MIN_BATCH (50)
    assert MIN_BATCH == 50
    sizes = [len(b) for b in _batches(_pairs(100, 10), 200, workers=2)]
    assert sizes == [200, 200, 150, 120, 90, 60, 50, 50, 50, 30]


def test_one_process_and_a_batch_size_of_one():
    assert [len(b) for b in _batches(_pairs(3, 4), 1, workers=1)] == [4, 4, 4]  # a server each
    # nothing to balance: batches of batch_size to the end
    assert [len(b) for b in _batches(_pairs(30, 10), 120, workers=1)] == [120, 120, 60]
