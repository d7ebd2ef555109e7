from __future__ import annotations

import base64
import hashlib
import os
import re
from pathlib import Path

import pytest

from tests.report.conftest import make_runs
from tests.report.htmlcheck import parse, well_formed_errors
from wirelab.errors import UsageError
from wirelab.report.html import write_report


def _data_uris(page: str, mime: str) -> list[bytes]:
    return [base64.b64decode(m) for m in re.findall(rf'src="data:{mime};base64,([^"]+)"', page)]


def test_page_from_synthetic_runs(tmp_path: Path) -> None:
    d = make_runs(tmp_path / "runs")
    (tmp_path / "page").mkdir()
    out = write_report([tmp_path / "runs"], tmp_path / "page" / "report.html")
    assert out == tmp_path / "page" / "report.html"
    page = out.read_text()
    assert well_formed_errors(page) == []
    # every PNG of every run is embedded byte for byte
    pngs = sorted(p.read_bytes() for p in (tmp_path / "runs").rglob("*.png"))
    assert len(pngs) == 3 and sorted(_data_uris(page, "image/png")) == pngs
    checker = parse(page)
    ids = set(checker.ids)
    assert {"summary", "system-reservoir", "system-logic", "system-attention"} <= ids
    assert {"run-reservoir-mc", "run-logic-train", "run-logic-unfinished"} <= ids
    assert "run-attention-broken" in ids
    # self-contained: no scripts, nothing fetched from elsewhere
    assert not any(tag == "script" for tag, _ in checker.tags)
    for tag, attrs in checker.tags:
        if tag in ("img", "video", "link", "source"):
            assert str(attrs.get("src") or attrs.get("href")).startswith("data:"), tag
    assert "http://" not in page and "https://" not in page
    # metrics, config and command of each run
    assert "wirelab reservoir memory-capacity" in page and "4.25" in page
    assert "results" in page and "65 more rows of 90" in page
    assert "graph.name" in page and "larva" in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    # the broken run is shown with its reason, the unfinished one as in progress
    assert "metrics.json is not valid JSON" in page
    assert "in progress: started " in page
    # the artifact is linked relative to the page
    assert 'href="../runs/logic/train/net.v"' in page
    assert d["logic"].exists()


def test_accepts_metrics_json_paths_like_the_tour(tmp_path: Path) -> None:
    make_runs(tmp_path / "runs")
    paths = sorted((tmp_path / "runs").rglob("metrics.json"))
    page = write_report(paths, tmp_path / "r.html").read_text()
    assert "run-reservoir-mc" in page and "run-attention-broken" in page
    assert "run-logic-unfinished" not in page  # not named, so not shown


def test_video_embedded_or_linked(tmp_path: Path) -> None:
    make_runs(tmp_path / "runs")
    clip = tmp_path / "runs" / "logic" / "train" / "fly.mp4"
    clip.write_bytes(b"\x00\x00\x00\x18ftypmp42" + bytes(2000))
    page = write_report([tmp_path / "runs"], tmp_path / "a.html").read_text()
    assert _data_uris(page, "video/mp4") == [clip.read_bytes()]
    text = write_report([tmp_path / "runs"], tmp_path / "b.html", max_embed_bytes=1000).read_text()
    assert "data:video/mp4" not in text and 'href="./runs/logic/train/fly.mp4"' in text
    assert "not embedded" in text


def test_empty_list_gives_a_page_and_bad_out_is_usage_error(tmp_path: Path) -> None:
    page = write_report([], tmp_path / "empty.html").read_text()
    assert well_formed_errors(page) == [] and "No result directories" in page
    make_runs(tmp_path / "runs")
    with pytest.raises(UsageError, match="is a directory"):
        write_report([tmp_path / "runs"], tmp_path)


def test_sweep_points_nest_under_the_sweep_and_its_csv_is_a_table(tmp_path: Path) -> None:
    from wirelab.results import ResultDir

    sweep = ResultDir.create(tmp_path / "sw", command="wirelab sweep grid.toml", config={})
    for i in range(3):
        p = ResultDir.create(
            sweep.path / "points" / f"p{i}", command="wirelab logic train", config={"seed": i}
        )
        p.write_metrics({"accuracy": 0.9 + i / 100})
    (sweep.path / "results.csv").write_text(
        "index,point,seed,status,accuracy\n"
        + "".join(f"{i},p{i},{i},ok,{0.9 + i / 100}\n" for i in range(3))
    )
    sweep.write_metrics({"points": 3, "ok": 3})
    page = write_report([tmp_path], tmp_path / "r.html").read_text()
    assert well_formed_errors(page) == []
    assert "3 runs inside this one" in page
    assert "system-logic" not in page  # the points are shown inside the sweep, not as systems
    ids = set(parse(page).ids)
    assert {"run-sw", "run-sw-points-p0", "run-sw-points-p2"} <= ids
    assert "<caption>results.csv" in page and '<td class="num">0.92</td>' in page
    summary = page.split('id="summary"')[1].split("</section>")[0]
    assert summary.count("<tr>") == 2  # header + the sweep


def _summary(page: str) -> str:
    return page.split('id="summary"')[1].split("</section>")[0]


def test_in_progress_and_failed_runs_are_shown_as_such(tmp_path: Path) -> None:
    d = make_runs(tmp_path / "runs")
    page = write_report([tmp_path / "runs"], tmp_path / "r.html").read_text()
    rows = {
        name: row
        for row in _summary(page).split("<tr>")[2:]
        for name in re.findall(r'href="#(run-[a-z-]+)"', row)
    }
    assert '<span class="badge failed">failed</span>' in rows["run-attention-failed"]
    assert (
        "failed: ValueError: --test-size 50000 is larger than the data"
        in rows["run-attention-failed"]
    )
    assert '<span class="badge in-progress">in progress</span>' in rows["run-logic-unfinished"]
    assert '<span class="badge complete">' in rows["run-logic-train"]
    assert '<span class="badge broken">' in rows["run-attention-broken"]
    cards = re.findall(r"<div class=card><b>(\d+)</b><span>([a-z ]+)</span>", page)
    assert {name: int(n) for n, name in cards} == {
        "runs": 5,
        "complete": 2,
        "in progress": 1,
        "failed": 1,
        "broken": 1,
        "plots": 3,
        "videos": 0,
    }
    # in the run's own article too, with the reason
    article = page.split('id="run-attention-failed"')[1].split("</article>")[0]
    assert "failed: ValueError" in article and "failed.json" not in article
    assert d["failed"].is_dir()


def test_links_are_relative_quoted_paths_never_a_scheme(tmp_path: Path) -> None:
    d = make_runs(tmp_path / "runs")
    for name in ("javascript:alert(5)", "a b&c?.txt", "#frag", "data:text,x"):
        (d["logic"] / name).write_text("x")
    page = write_report([d["logic"]], d["logic"] / "report.html").read_text()
    links = [str(a.get("href")) for tag, a in parse(page).tags if tag == "a"]
    files = [h for h in links if not h.startswith("#")]
    assert files and all(h.startswith("./") for h in files), files
    assert "./javascript%3Aalert%285%29" in files
    assert "./a%20b%26c%3F.txt" in files and "./%23frag" in files
    assert not any(":" in h for h in files)
    # a file beside the page's folder
    other = write_report([d["logic"]], tmp_path / "o.html").read_text()
    assert 'href="./runs/logic/train/javascript%3Aalert%285%29"' in other


def test_content_security_policy_allows_only_what_the_page_needs(tmp_path: Path) -> None:
    make_runs(tmp_path / "runs")
    page = write_report([tmp_path / "runs"], tmp_path / "r.html").read_text()
    metas = [a for tag, a in parse(page).tags if tag == "meta" and a.get("http-equiv")]
    (meta,) = metas
    assert meta["http-equiv"] == "Content-Security-Policy"
    policy = dict(
        (d.split()[0], d.split()[1:]) for d in str(meta["content"]).split(";") if d.strip()
    )
    style = page.split("<style>", 1)[1].split("</style>", 1)[0]
    digest = base64.b64encode(hashlib.sha256(style.encode()).digest()).decode()
    assert policy == {
        "default-src": ["'none'"],
        "img-src": ["data:"],
        "media-src": ["data:"],
        "style-src": [f"'sha256-{digest}'"],
        "base-uri": ["'none'"],
        "form-action": ["'none'"],
    }
    # the policy comes before anything it governs
    assert page.index("Content-Security-Policy") < page.index("<style>")
    assert ' style="' not in page  # inline style attributes would be blocked


def test_unreadable_or_invalid_png_is_skipped_with_a_note(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    d = make_runs(tmp_path / "runs")
    (d["logic"] / "dangling.png").symlink_to(tmp_path / "missing.png")
    (d["logic"] / "junk.png").write_bytes(b"not a png at all")
    (d["logic"] / "dangling.csv").symlink_to(tmp_path / "missing.csv")
    (d["logic"] / "dangling.txt").symlink_to(tmp_path / "missing.txt")
    (d["logic"] / "gone.png").write_bytes(b"removed while the page is built")
    (d["logic"] / "gone.csv").write_text("a,b\n1,2\n")
    locked = d["mc"] / "spectrum.png"
    errors = {
        str(locked): PermissionError(13, "Permission denied", str(locked)),
        str(d["logic"] / "gone.png"): FileNotFoundError(2, "No such file or directory"),
        str(d["logic"] / "gone.csv"): FileNotFoundError(2, "No such file or directory"),
    }
    real_open = os.open

    def open_(path: str | Path, *args: int) -> int:  # the report opens every file with os.open
        if str(path) in errors:
            raise errors[str(path)]
        return real_open(path, *args)

    monkeypatch.setattr(os, "open", open_)
    page = write_report([tmp_path / "runs"], tmp_path / "r.html").read_text()
    assert well_formed_errors(page) == []
    assert "gone.png: could not be read (No such file or directory); skipped" in page
    assert "junk.png: is not a PNG image; skipped" in page
    assert "spectrum.png: could not be read (Permission denied); skipped" in page
    assert "gone.csv could not be read" in page
    assert len(_data_uris(page, "image/png")) == 2  # the other plots are still there
    # dangling links are links: never followed, named among the run's problems
    assert "not shown: dangling.csv, dangling.png, dangling.txt (symbolic links" in page


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads files whatever their mode")
def test_png_without_read_permission_is_skipped(tmp_path: Path) -> None:
    d = make_runs(tmp_path / "runs")
    (d["mc"] / "spectrum.png").chmod(0)
    page = write_report([tmp_path / "runs"], tmp_path / "r.html").read_text()
    assert "spectrum.png: could not be read (Permission denied); skipped" in page


def test_out_in_a_missing_folder_is_refused_and_creates_nothing(tmp_path: Path) -> None:
    make_runs(tmp_path / "runs")
    with pytest.raises(UsageError, match=r"the folder .*/missing/dir does not exist"):
        write_report([tmp_path / "runs"], tmp_path / "missing" / "dir" / "page.html")
    assert not (tmp_path / "missing").exists()
    (tmp_path / "file").write_text("x")
    with pytest.raises(UsageError, match="is not a directory"):
        write_report([tmp_path / "runs"], tmp_path / "file" / "page.html")


def test_page_is_readable_by_others(tmp_path: Path) -> None:
    make_runs(tmp_path / "runs")
    old = os.umask(0o022)
    try:
        out = write_report([tmp_path / "runs"], tmp_path / "r.html")
    finally:
        os.umask(old)
    assert out.stat().st_mode & 0o777 == 0o644
