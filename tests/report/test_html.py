from __future__ import annotations

import base64
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
    # the broken run is shown with its reason, the unfinished one as incomplete
    assert "metrics.json is not valid JSON" in page
    assert "no metrics.json: the run did not finish" in page
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
    page = write_report([tmp_path / "runs"], tmp_path / "b.html", max_embed_bytes=1000)
    text = page.read_text()
    assert "data:video/mp4" not in text and 'href="runs/logic/train/fly.mp4"' in text
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
        p = ResultDir.create(sweep.path / "points" / f"p{i}", command="wirelab logic train",
                             config={"seed": i})  # fmt: skip
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
