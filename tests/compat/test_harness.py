"""The compatibility harness: D2L block extraction, result summaries, cause grouping, the docs
page, and one end-to-end run of each suite on small fake checkouts."""
import json
import subprocess
import sys
import textwrap

import pytest

from mxlab.compat.harness import d2l_suite, docs, mxnet_suite, report

MARKDOWN = textwrap.dedent("""\
    ```{.python .input}
    %load_ext d2lbook.tab
    tab.interact_select(['mxnet', 'pytorch'])
    ```

    ```{.python .input}
    %%tab mxnet
    %matplotlib inline
    x = 1
    ```

    ```{.python .input}
    %%tab pytorch
    import torch
    ```

    ```{.python .input  n=3}
    #@tab mxnet, pytorch
    y = x + 1
    ```

    ```{.python .input}
    %%tab all
    if tab.selected('mxnet'):
        z = y * 2
    ```
    """)


def test_extract_blocks_keeps_the_mxnet_tab_only_without_magics():
    blocks = d2l_suite.extract_blocks(MARKDOWN)
    assert [code for _, code in blocks] == ["x = 1", "y = x + 1",
                                             "if tab.selected('mxnet'):\n    z = y * 2"]
    assert [line for line, _ in blocks] == [8, 19, 24]


def test_build_script_maps_script_lines_to_markdown_lines():
    text, origin = d2l_suite.build_script(d2l_suite.extract_blocks(MARKDOWN))
    lines = text.splitlines()
    assert origin[lines.index("y = x + 1")] == 19
    assert origin[0] is None   # the prelude


def _phase(nodeid, when, outcome, message=None, **extra):
    return dict(kind="phase", nodeid=nodeid, when=when, outcome=outcome, message=message, **extra)


def test_summarize_counts_final_outcomes():
    records = [{"kind": "collected", "count": 5},
               _phase("a", "setup", "passed"), _phase("a", "call", "passed"),
               _phase("b", "setup", "passed"), _phase("b", "call", "failed", "ValueError: x"),
               _phase("c", "setup", "failed", "KeyError: k"),
               _phase("d", "setup", "skipped", "no gpu"),
               _phase("e", "setup", "passed"), _phase("e", "call", "passed"),
               _phase("e", "teardown", "failed", "AssertionError: leak")]
    result = mxnet_suite.summarize(records)
    assert (result["collected"], result["passed"], result["failed"], result["errors"],
            result["skipped"], result["not_run"]) == (5, 1, 1, 2, 1, 0)
    assert sorted(result["causes"]) == ["AssertionError: leak", "KeyError: k", "ValueError: x"]


def test_summarize_counts_tests_a_timeout_cut_off():
    result = mxnet_suite.summarize([{"kind": "collected", "count": 3},
                                    _phase("a", "setup", "passed")])
    assert result["errors"] == 1 and result["not_run"] == 2


@pytest.mark.parametrize("message, cause", [
    ("ValueError: shape (2, 3) vs (4,)", "ValueError: shape (shape) vs (shape)"),
    ("ImportError: cannot import name 'x' from 'mxlab.util' (/a/b/util.py)",
     "ImportError: cannot import name 'x' from 'mxlab.util'"),
    ("AssertionError: at 0x7f00aa", "AssertionError: at 0x_"),
])
def test_cause_pattern_folds_variable_parts(message, cause):
    assert report.cause_pattern(message) == cause


@pytest.mark.parametrize("message, name", [
    ("AttributeError: module 'mxlab.numpy' has no attribute 'tril'", "mx.numpy.tril"),
    ("ImportError: cannot import name 'foo' from 'mxlab.util' (/x.py)", "mx.util.foo"),
    ("ModuleNotFoundError: No module named 'mxnet.image'", "mxnet.image"),
    ("TypeError: f() got an unexpected keyword argument 'root'", "keyword root="),
    ("AssertionError: 1 != 2", None),
])
def test_missing_name(message, name):
    assert report.missing_name(message) == name


def _result(file, collected, passed, causes=(), import_error=None):
    return dict(file=file, collected=collected, passed=passed, failed=len(causes), errors=0,
                skipped=0, not_run=0, seconds=1.0, timed_out=False, import_error=import_error,
                causes=list(causes), skip_reasons=[])


def test_tables_group_causes_and_rank_missing_names():
    results = [_result("test_a.py", 4, 2, ["AttributeError: module 'mxlab.np' has no attribute "
                                           "'tril'"] * 2),
               _result("test_b.py", 0, 0, import_error="ImportError: cannot import name 'q' "
                                                       "from 'mxlab.util'")]
    summary = report.mxnet_summary(results)
    assert (summary["past_import"], summary["passed"], summary["percent"]) == (1, 2, "50.0%")
    text = report.mxnet_tables(results)
    assert "| `mx.np.tril` | 2 | a |" in text and "| `mx.util.q` | 1 | b |" in text


def test_docs_save_merges_partial_runs_and_writes_the_page(tmp_path, monkeypatch):
    monkeypatch.setattr(docs, "DOCS", str(tmp_path))
    monkeypatch.setattr(docs, "RESULTS", str(tmp_path / "compat"))
    docs.save("mxnet", [_result("test_a.py", 2, 1), _result("test_b.py", 2, 2)])
    docs.save("mxnet", [_result("test_a.py", 2, 2)])
    docs.save("d2l", [{"section": "c/s", "status": "ok", "seconds": 1.0}])
    docs.record_history("now")
    page = open(docs.write(), encoding="utf-8").read()
    saved = json.loads((tmp_path / "compat" / "mxnet.json").read_text())
    assert [r["passed"] for r in saved] == [2, 2]
    assert "| now | 2 | 2 | 4 | 4 | 100.0% | 1/1 |" in page
    assert "test_subgraph_op.py (whole file)" in page


def test_a_1x_tree_gets_its_own_results_table_and_history_column(tmp_path, monkeypatch):
    monkeypatch.setattr(docs, "DOCS", str(tmp_path))
    monkeypatch.setattr(docs, "RESULTS", str(tmp_path / "compat"))
    src = tmp_path / "mxnet-1.9.1"
    (src / "python" / "mxnet").mkdir(parents=True)
    (src / "python" / "mxnet" / "libinfo.py").write_text('__version__ = "1.9.1"\n')
    assert mxnet_suite.release(str(src)) == "1.9.1"
    assert mxnet_suite.suite_name(str(src)) == "mxnet-1.x"
    assert mxnet_suite.suite_name(str(tmp_path)) == "mxnet"   # NOTE: no libinfo: master's layout
    docs.save("mxnet", [_result("test_a.py", 2, 2)])
    docs.save("mxnet-1.x", [_result("test_module.py", 4, 3, ["AssertionError: x"])])
    docs.record_history("both")
    page = open(docs.write(), encoding="utf-8").read()
    assert "## MXNet 1.9.1 unittests" in page and "| test_module.py | 4 | 3 | 1 |" in page
    assert "| both | 1 | 1 | 2 | 2 | 100.0% | 0/0 | 3 / 4 (75.0%) |" in page


def test_docs_save_drops_files_excluded_since_an_earlier_run(tmp_path, monkeypatch):
    monkeypatch.setattr(docs, "RESULTS", str(tmp_path / "compat"))
    docs.save("mxnet", [_result("test_a.py", 2, 1), _result("test_net.py", 3, 0)])
    monkeypatch.setitem(mxnet_suite.EXCLUDED_FILES, "test_net.py", "needs the network")
    docs.save("mxnet", [_result("test_a.py", 2, 2)])
    saved = json.loads((tmp_path / "compat" / "mxnet.json").read_text())
    assert [r["file"] for r in saved] == ["test_a.py"]


def _fake_mxnet(tmp_path):
    unittest = tmp_path / "tests" / "python" / "unittest"
    unittest.mkdir(parents=True)
    (tmp_path / "pytest.ini").write_text("[pytest]\nmarkers =\n    seed: seed\n")
    (tmp_path / "conftest.py").write_text("import mxnet\n")
    (unittest / "test_mix.py").write_text(textwrap.dedent("""\
        import pytest
        import mxnet as mx

        def test_pass():
            assert mx.nd.ones((2,)).sum().asscalar() == 2

        def test_fail():
            mx.nd.no_such_function()

        @pytest.mark.skip(reason="not here")
        def test_skip():
            pass
        """))
    (unittest / "test_broken.py").write_text("from mxnet.util import no_such_name\n")
    return tmp_path


def test_mxnet_suite_end_to_end(tmp_path, monkeypatch):
    src = _fake_mxnet(tmp_path)
    monkeypatch.setitem(mxnet_suite.EXCLUDED_TESTS, "test_mix.py", {"test_skip": "needs _LIB"})
    results = {r["file"]: r for r in mxnet_suite.run_suite(str(src), timeout=240,
                                                           progress=lambda s: None, jobs=2)}
    mix, broken = results["test_mix.py"], results["test_broken.py"]
    assert (mix["collected"], mix["passed"], mix["failed"], mix["skipped"]) == (2, 1, 1, 0)
    assert "no_such_function" in mix["causes"][0]
    assert broken["collected"] == 0 and "no_such_name" in broken["import_error"]


def test_d2l_suite_end_to_end_with_generated_data(tmp_path, monkeypatch):
    (tmp_path / "d2l").mkdir()
    (tmp_path / "d2l" / "__init__.py").write_text("")
    (tmp_path / "d2l" / "mxnet.py").write_text(textwrap.dedent("""\
        DATA_HUB = {}
        DATA_URL = 'http://example.org/'
        def download(url, folder='../data', sha1_hash=None):
            raise RuntimeError('network')
        """))
    chapter = tmp_path / "chapter_preliminaries"
    chapter.mkdir()
    (chapter / "ok.md").write_text(textwrap.dedent("""\
        ```{.python .input}
        %%tab mxnet
        from d2l import mxnet as d2l
        from mxnet import np
        text = open(d2l.download(d2l.DATA_URL + 'timemachine.txt')).read()
        assert len(text) > 1000 and np.ones(2).sum() == 2
        ```
        """))
    (chapter / "bad.md").write_text("```{.python .input}\n#@tab all\nimport "
                                    "mxnet\nmxnet.nope\n```\n")
    results = {r["section"]: r for r in d2l_suite.run_suite(str(tmp_path), jobs=2,
                                                            progress=lambda s: None)}
    assert results["chapter_preliminaries/ok"]["status"] == "ok"
    bad = results["chapter_preliminaries/bad"]
    assert bad["status"] == "failed" and "nope" in bad["error"]
    assert bad["where"] == "chapter_preliminaries/bad.md:4"
    (chapter / "gpu.md").write_text("```{.python .input}\n#@tab all\nraise SystemExit(3)\n```\n")
    monkeypatch.setitem(d2l_suite.EXCLUDED, "chapter_preliminaries/gpu", "needs a GPU")
    gpu, = d2l_suite.run_suite(str(tmp_path), ["chapter_preliminaries/gpu"],
                               progress=lambda s: None)
    assert gpu["status"] == "excluded" and gpu["error"].startswith("needs a GPU")
    assert "0 run to the end, 1 excluded" in report.d2l_tables([gpu])


def test_d2l_oracle_run_uses_the_given_python_and_caps_epochs(tmp_path):
    # A stand-in "real MXNet" on the D2L path: the oracle run must import it, not the alias.
    (tmp_path / "mxnet").mkdir()
    (tmp_path / "mxnet" / "__init__.py").write_text("REAL = True\n")
    (tmp_path / "d2l").mkdir()
    (tmp_path / "d2l" / "__init__.py").write_text("")
    (tmp_path / "d2l" / "mxnet.py").write_text(textwrap.dedent("""\
        DATA_HUB, DATA_URL = {}, 'http://example.org/'
        class Trainer:
            def __init__(self, max_epochs):
                self.max_epochs = max_epochs
            def fit(self, model, data):
                return self.max_epochs
        """))
    chapter = tmp_path / "chapter_preliminaries"
    chapter.mkdir()
    (chapter / "real.md").write_text(textwrap.dedent("""\
        ```{.python .input}
        %%tab mxnet
        import sys, mxnet
        from d2l import mxnet as d2l
        assert mxnet.REAL and 'mxlab' not in sys.modules
        assert d2l.Trainer(max_epochs=10).fit(None, None) == 1
        assert open(d2l.download(d2l.DATA_URL + 'timemachine.txt')).read()
        ```
        """))
    oracle, = d2l_suite.run_suite(str(tmp_path), progress=lambda s: None, python=sys.executable)
    assert oracle["status"] == "ok", oracle
    alias, = d2l_suite.run_suite(str(tmp_path), progress=lambda s: None)
    assert alias["status"] == "failed" and "REAL" in alias["error"]


def test_generated_fra_eng_has_the_two_columns_d2l_reads():
    import io
    import zipfile

    import numpy

    from mxlab.compat.harness import d2l_offline

    archive = zipfile.ZipFile(io.BytesIO(d2l_offline.GENERATORS["fra-eng.zip"](
        numpy.random.default_rng(0))))
    lines = archive.read("fra-eng/fra.txt").decode().splitlines()
    # MTFraEng keeps only lines of exactly two tab-separated parts, 512 + 128 of them by default
    assert sum(len(line.split("\t")) == 2 for line in lines) >= 640


def test_d2l_train_2d_trace_plots_as_on_numpy_123():
    # chapter_optimization/sgd: train_2d's trace mixes Python ints with shape-(1,) arrays, which
    # NumPy >= 1.24 refuses as ragged; MXNet 1.9.1 ran it on NumPy 1.23 (an object array)
    import matplotlib
    import numpy

    import mxlab as mx
    from mxlab.compat.harness import d2l_offline

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    trace = (-5, mx.np.array([-4.5]), mx.np.array([-4.25]))
    with pytest.raises(ValueError):
        numpy.asanyarray(trace)
    ragged = d2l_offline.as_numpy_123(trace)
    assert ragged.dtype == object and ragged.shape == (3,)
    assert d2l_offline.as_numpy_123([1, 2]).tolist() == [1, 2]

    class D2L:
        pass

    d2l = D2L()
    d2l.plt = type("plt", (), {"plot": staticmethod(plt.plot)})
    d2l_offline._plot_ragged_as_numpy_123(d2l)
    line, = d2l.plt.plot(trace, (-2, mx.np.array([-1.5]), mx.np.array([-1.0])), "-o")
    numpy.testing.assert_allclose(numpy.asarray(line.get_xdata(), float), [-5, -4.5, -4.25])
    plt.close("all")


def test_the_recorder_restores_numpy_spellings_mxnet_tests_use():
    """In the harness's own subprocesses only: removed aliases and quantile's interpolation=."""
    code = ("import mxlab.compat.harness.recorder, numpy\n"
            "print(numpy.product([2, 3]), numpy.quantile([1.0, 2.0, 4.0], 0.75, "
            "interpolation='lower'))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120)
    assert out.stdout.split() == ["6", "2.0"], out.stderr
