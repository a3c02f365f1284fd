"""The start-up's reading of the patterns' words, kept on disk (`logs.pattern_cache`), and the block search's smaller
word set (`prefilter.Words._minimal`): the same tables and the same lines as without them."""

from __future__ import annotations

import json

import pytest

from vramdoctor.engines import all_engines
from vramdoctor.logs import pattern_cache
from vramdoctor.logs.knowledge import Knowledge
from vramdoctor.logs.prefilter import Words

_TABLES = ("always", "by_id", "milestone_only", "figure_prefix", "sample_always", "sample_by_id", "words_of")


def _tables(k: Knowledge) -> tuple:
    return (tuple(getattr(k, a) for a in _TABLES), k.words.words, k.sample_words.words,
            [(m, q.pattern) for m, q in k.milestones])


@pytest.fixture()
def cache_home(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    return tmp_path / "vramdoctor"


def test_a_knowledge_from_the_kept_words_is_the_same(cache_home):
    fresh = Knowledge(all_engines())
    name = pattern_cache.digest()
    pattern_cache.save(name, fresh.memo_used)
    memo = pattern_cache.load(name)
    assert memo == fresh.memo_used and len(memo) > 1000
    again = Knowledge(all_engines(), memo)
    assert _tables(again) == _tables(fresh)
    assert again.memo_used == memo  # (nothing new read: the next run writes nothing)


def test_a_changed_pattern_is_read_anew(cache_home):
    fresh = Knowledge(all_engines())
    wrong = {k: (["zzzz"] if v is not None and k.startswith("r") else v) for k, v in fresh.memo_used.items()}
    # (every entry is keyed by its pattern's text: a key no pattern has is not used, and is not kept)
    wrong["r\x000\x00no such pattern"] = ["zzzz"]
    k = Knowledge(all_engines(), {"r\x000\x00no such pattern": ["zzzz"]})
    assert _tables(k) == _tables(fresh) and "r\x000\x00no such pattern" not in k.memo_used
    assert Knowledge(all_engines(), wrong).words.words != fresh.words.words  # (the memo is what it reads)


def test_a_long_alternations_pieces_that_do_not_make_it_are_read_anew(cache_home):
    fresh = Knowledge(all_engines())
    pieces = {k: v for k, v in fresh.memo_used.items() if k.startswith("a") and v}
    assert pieces, "no long alternation among the patterns: the test has nothing to check"
    tampered = dict(fresh.memo_used, **{k: ["x", "y"] for k in pieces})
    assert _tables(Knowledge(all_engines(), tampered)) == _tables(fresh)


@pytest.mark.parametrize("content", [b"{not json", b"[1, 2]", b'{"r\\u0000x": 5}', b"\xff\xfe"])
def test_a_broken_file_is_passed_over(cache_home, content):
    name = pattern_cache.digest()
    cache_home.mkdir(parents=True)
    (cache_home / f"patterns-{name}.json").write_bytes(content)
    assert pattern_cache.load(name) == {}


def test_a_folder_that_cannot_be_written_is_passed_over(tmp_path, monkeypatch):
    blocker = tmp_path / "file"
    blocker.write_text("")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))  # (a file where the folder would be)
    pattern_cache.save("x", {"r": None})  # no error
    assert pattern_cache.load("x") == {}


def test_a_new_file_removes_the_older_ones(cache_home):
    pattern_cache.save("old", {"r\x000\x00a": None})
    pattern_cache.save("new", {"r\x000\x00b": ["bbb"]})
    assert sorted(p.name for p in cache_home.iterdir()) == ["patterns-new.json"]
    assert json.loads((cache_home / "patterns-new.json").read_text())["memo"] == {"r\x000\x00b": ["bbb"]}


def test_a_file_changed_after_it_was_written_is_passed_over(cache_home):
    pattern_cache.save("x", {"r\x000\x00a": ["aaa", "bbb"]})
    path = cache_home / "patterns-x.json"
    data = json.loads(path.read_text())
    data["memo"]["r\x000\x00a"] = ["bbb", "aaa"]  # (still valid JSON, of the right shape)
    path.write_text(json.dumps(data))
    assert pattern_cache.load("x") == {}


@pytest.mark.parametrize("backend", ["hyperscan", "ahocorasick"])
def test_the_block_search_needs_only_the_words_that_hold_no_other(monkeypatch, backend):
    if backend == "hyperscan":
        pytest.importorskip("hyperscan")
    monkeypatch.setattr(Words, "backend", backend)
    w = Words(["prompt", "avg prompt throughput: ", "kv cache usage", "cache usage", "oom"])
    assert sorted(w._minimal()) == [b"cache usage", b"oom", b"prompt"]
    block = (b"Avg prompt throughput: 1.0 tokens/s, GPU KV cache usage: 5%\nnothing here\nROOM\n"
             b"a prompt\nKV CACHE USAGE\n")
    lines = {block.count(b"\n", 0, h) for h in w.hits(Words.prepare(block), 0, len(block))}
    assert lines == {0, 2, 3, 4}
