"""A mined folder read with pandas alone, as docs/axioms.md shows, gives read_instances' rows."""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd
import pytest

from axiomatic import demo_dataset, mine, read_instances

DOC = Path(__file__).resolve().parents[2] / "docs" / "axioms.md"


def test_the_documented_pandas_line_reads_a_mined_folder(tmp_path: Path) -> None:
    folder = tmp_path / "inst"
    mine(demo_dataset(), "TFC1,M-TDC,LNC2", folder, progress=False)
    with pytest.raises(Exception, match=r"manifest\.json"):  # why the page needs the line
        pd.read_parquet(folder)
    text = DOC.read_text(encoding="utf-8")
    (line,) = re.findall(r'^\s*instances = (pd\.read_parquet\("out/msmarco".*\))$', text, re.M)
    got = eval(line.replace('"out/msmarco"', repr(str(folder))), {"pd": pd})
    want, _ = read_instances(folder)
    key = ["query_id", "axiom", "spec", "doc_a", "doc_b"]
    got = got.sort_values(key, ignore_index=True)
    want = want.sort_values(key, ignore_index=True)
    assert len(got) == len(want) > 0
    pd.testing.assert_frame_equal(got.astype(str), want.astype(str))
