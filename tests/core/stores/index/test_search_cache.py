"""rho-desk's cache database: self-healing, FTS5 trigram queries, snippets, hostile queries."""

from __future__ import annotations

import sqlite3
import stat
from dataclasses import replace
from pathlib import Path

import pytest

from rho_desk.core.stores import search
from rho_desk.core.stores.search import SessionCache, cache_file_for

from .helpers import make_summary


def _put(cache: SessionCache, **fields: object) -> None:
    summary = make_summary(path=f"/t/{fields.get('id', 's1')}/session.jsonl", **fields)
    cache.store(summaries=[(summary, 1)])


def test_cache_files_are_per_home_private_and_self_healing(tmp_path: Path) -> None:
    one = cache_file_for(tmp_path / "a" / "sessions", tmp_path / "cache")
    two = cache_file_for(tmp_path / "b" / "sessions", tmp_path / "cache")
    assert one != two and one.parent == tmp_path / "cache"
    with SessionCache.open(one) as cache:
        _put(cache, id="s1", search_text="hello world")
    assert stat.S_IMODE(one.stat().st_mode) == 0o600
    assert stat.S_IMODE(one.parent.stat().st_mode) == 0o700  # we made it: private
    chosen = tmp_path / "chosen"
    chosen.mkdir(mode=0o755)
    chosen.chmod(0o755)
    SessionCache.open(chosen / "x.sqlite3").close()
    assert stat.S_IMODE(chosen.stat().st_mode) == 0o755  # the user's folder keeps its mode
    assert stat.S_IMODE((chosen / "x.sqlite3").stat().st_mode) == 0o600
    with SessionCache.open(one) as cache:
        assert cache.count() == 1
    one.write_bytes(b"not a database at all" * 100)
    for suffix in ("-wal", "-shm"):
        Path(str(one) + suffix).unlink(missing_ok=True)
    with SessionCache.open(one) as cache:  # damaged: rebuilt empty, no error
        assert cache.count() == 0
        _put(cache, id="s2")
    db = sqlite3.connect(one)
    db.execute("pragma user_version = 99")
    db.commit()
    db.close()
    with SessionCache.open(one) as cache:  # another rho-desk version's cache: rebuilt
        assert cache.count() == 0


def test_store_replaces_text_and_keeps_the_mirrored_title(tmp_path: Path) -> None:
    with SessionCache.open(tmp_path / "c.sqlite3") as cache:
        _put(cache, id="s1", search_text="alpha bravo")
        cache.set_title("ws-home-alice-proj", "s1", "Named")
        _put(cache, id="s1", search_text="charlie delta")
        assert [h.session.id for h in cache.search("charlie").hits] == ["s1"]
        assert cache.search("alpha").hits == []
        assert cache.get("ws-home-alice-proj", "s1").title == "Named"  # type: ignore[union-attr]
        assert [h.session.id for h in cache.search("named").hits] == ["s1"]
        cache.mirror_titles({})
        assert cache.search("named").hits == []
        cache.remove(["/t/s1/session.jsonl"])
        assert cache.count() == 0 and cache.search("charlie").hits == []


def test_snippets_of_long_text_have_offsets_and_are_capped(tmp_path: Path) -> None:
    body = ("filler " * 50 + "NEEDLE here ") * 10
    with SessionCache.open(tmp_path / "c.sqlite3") as cache:
        _put(cache, id="s1", search_text=body)
        (hit,) = cache.search("needle").hits
    assert len(hit.snippets) == search.SNIPPETS_PER_HIT
    first = hit.snippets[0]
    assert first.offset == body.index("NEEDLE") - search.SNIPPET_CONTEXT
    ((start, end),) = first.highlights
    assert first.text[start:end] == "NEEDLE"
    assert body[first.offset + start : first.offset + end] == "NEEDLE"


def test_text_beyond_the_cap_is_not_indexed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(search, "MAX_SEARCH_CHARS", 20)
    with SessionCache.open(tmp_path / "c.sqlite3") as cache:
        _put(cache, id="s1", search_text="early words here, and late words there")
        assert cache.search("early").hits and not cache.search("late").hits


@pytest.mark.parametrize(
    "query",
    [
        '"',
        '""',
        'a"b',
        "NEAR(",
        "AND OR NOT",
        "*",
        "x*",
        "100%",
        "_",
        "'; drop table sessions; --",
        "{col}:x",
        "^start",
        "\\",
        "snake_case_name",
        "a - b",
    ],
)
def test_hostile_queries_never_raise(tmp_path: Path, query: str) -> None:
    with SessionCache.open(tmp_path / "c.sqlite3") as cache:
        _put(cache, id="s1", search_text="snake_case_name and 100% of a - b NEAR( AND OR NOT")
        results = cache.search(query)
        assert isinstance(results.hits, list)
        assert cache.count() == 1


def test_like_wildcards_are_literal(tmp_path: Path) -> None:
    with SessionCache.open(tmp_path / "c.sqlite3") as cache:
        _put(cache, id="s1", first_user_message="50% off", search_text="50% off")
        _put(cache, id="s2", first_user_message="500 items", search_text="500 items")
        assert [h.session.id for h in cache.search("0%").hits] == ["s1"]
        assert [h.session.id for h in cache.search("50% off").hits] == ["s1"]


def test_unicode_case_folding(tmp_path: Path) -> None:
    with SessionCache.open(tmp_path / "c.sqlite3") as cache:
        _put(cache, id="s1", search_text="Grüße aus KÖLN, café")
        assert [h.session.id for h in cache.search("köln").hits] == ["s1"]
        assert [h.session.id for h in cache.search("GRÜSSE").hits] == []  # no ß→ss folding
        (hit,) = cache.search("CAFÉ").hits
        snippet = hit.snippets[0]
        assert [snippet.text[s:e] for s, e in snippet.highlights] == ["café"]


def test_list_orders_and_scopes(tmp_path: Path) -> None:
    with SessionCache.open(tmp_path / "c.sqlite3") as cache:
        base = make_summary()
        rows = [
            replace(base, id="a", path="/a", updated_at=5, created_at=1),
            replace(base, id="b", path="/b", updated_at=5, created_at=2),
            replace(base, id="c", path="/c", updated_at=9, created_at=0),
            replace(base, id="d", path="/d", workspace_key="other"),
        ]
        cache.store(summaries=[(r, 1) for r in rows])
        assert [s.id for s in cache.list(base.workspace_key)] == ["c", "b", "a"]
        assert [s.id for s in cache.list(base.workspace_key, descending=False)] == ["a", "b", "c"]
        assert cache.count() == 4 and cache.count("other") == 1
        assert [s.id for s in cache.list(limit=2, offset=1)] == ["c", "b"]  # d (updated 200) first


@pytest.mark.parametrize("module", ["index", "search", "library"])
def test_public_names_are_sorted_and_resolve(module: str) -> None:
    import importlib

    mod = importlib.import_module(f"rho_desk.core.stores.{module}")
    # ruff's RUF022 order, as the rest of the project: CONSTANTS, Classes, functions.
    order = sorted(
        mod.__all__, key=lambda n: (0 if n.isupper() else 1 if n[:1].isupper() else 2, n)
    )
    assert mod.__all__ == order
    assert [n for n in mod.__all__ if not hasattr(mod, n)] == []


@pytest.mark.parametrize("sort", ["updated", "size"])
def test_a_page_by_date_or_size_is_read_by_an_index(tmp_path: Path, sort: str) -> None:
    """A library's first page sorted newest first or largest first walks an index and stops at
    the page's end (no sort of every session: ``agents.list_10k`` and its by-size twin)."""
    with SessionCache.open(tmp_path / "c.sqlite3"):
        pass
    db = sqlite3.connect(tmp_path / "c.sqlite3")
    sql = f"{search._SELECT} order by {search._order(sort, True)} limit 100"
    plan = " ".join(str(row[-1]) for row in db.execute(f"explain query plan {sql}"))
    db.close()
    assert "USING INDEX" in plan and "TEMP B-TREE" not in plan, plan
