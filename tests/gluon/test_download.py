"""gluon.utils.download / check_sha1 and test_utils.download, against a local HTTP server (no
network needed: the files are served from a temporary directory)."""
import functools
import hashlib
import http.server
import threading

import pytest

import mxlab as mx


@pytest.fixture
def server(tmp_path):
    """A URL prefix serving ``tmp_path / 'site'``."""
    site = tmp_path / "site"
    site.mkdir()
    (site / "data.bin").write_bytes(b"mxlab" * 1000)
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(site))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    httpd.RequestHandlerClass.log_message = lambda *args: None
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


def test_download_fetches_checks_and_keeps_existing_files(server, tmp_path):
    sha1 = hashlib.sha1(b"mxlab" * 1000).hexdigest()
    out = tmp_path / "out"
    out.mkdir()
    path = mx.gluon.utils.download(f"{server}/data.bin", path=str(out), sha1_hash=sha1)
    assert path == str(out / "data.bin") and mx.gluon.utils.check_sha1(path, sha1)
    (out / "data.bin").write_bytes(b"kept")                 # an existing file is not fetched
    assert mx.gluon.utils.download(f"{server}/data.bin", path=path) == path
    assert (out / "data.bin").read_bytes() == b"kept"
    mx.gluon.utils.download(f"{server}/data.bin", path=path, sha1_hash=sha1)   # stale: refetched
    assert mx.gluon.utils.check_sha1(path, sha1)
    again = mx.test_utils.download(f"{server}/data.bin", fname="copy.bin", dirname=str(out))
    assert again == str(out / "copy.bin")


def test_download_failures_name_the_url(server, tmp_path):
    with pytest.raises(mx.MXNetError, match="missing.bin") as err:
        mx.gluon.utils.download(f"{server}/missing.bin", path=str(tmp_path), retries=0)
    assert isinstance(err.value, RuntimeError) and not (tmp_path / "missing.bin").exists()
    with pytest.raises(mx.MXNetError, match="SHA-1"):
        mx.gluon.utils.download(f"{server}/data.bin", path=str(tmp_path), sha1_hash="0" * 40,
                                retries=0)
    assert not (tmp_path / "data.bin").exists()


def test_unverified_download_warns_even_for_a_kept_file(tmp_path):
    # MXNet warns about verify_ssl=False before looking for an existing file
    kept = tmp_path / "index.html"
    kept.write_text("kept")
    with pytest.warns(UserWarning, match="Unverified HTTPS request"):
        path = mx.gluon.utils.download("https://example.invalid/index.html", path=str(kept),
                                       verify_ssl=False)
    assert path == str(kept) and kept.read_text() == "kept"
