"""Real SPARQL servers for the remote-store tests, started and stopped by the tests.

* Oxigraph's server: the ``oxigraph`` binary of the ``oxigraph`` PyPI package
  (in the ``test`` extra), ``oxigraph serve --location DIR --bind 127.0.0.1:PORT``.
* Virtuoso 7 from Debian (``virtuoso-opensource-7``): ``virtuoso-t +foreground``
  with a generated ``virtuoso.ini`` in a temp dir and its own two ports; anonymous
  SPARQL updates are granted with ``isql-vt`` (``GRANT SPARQL_UPDATE TO "SPARQL"``).

Each starter returns None with the reason when the binary is missing, so tests skip
with that reason printed.
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from memkg.store.backends.sparql import RemoteError, wait_until_up


@dataclass
class Server:
    name: str
    endpoint: str
    process: subprocess.Popen
    startup_seconds: float

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait(name: str, endpoint: str, process: subprocess.Popen, log: Path, started: float) -> Server:
    try:
        wait_until_up(endpoint, seconds=60)
    except RemoteError:
        process.kill()
        raise RuntimeError(f"{name} did not start; its log:\n{log.read_text(errors='replace')[-2000:]}") from None
    return Server(name, endpoint, process, time.monotonic() - started)


def _beside_python(name: str) -> str | None:
    """A console script of the running environment (a venv's bin/ need not be on PATH)."""
    candidate = Path(sys.executable).parent / name
    return str(candidate) if candidate.is_file() else shutil.which(name)


def start_oxigraph(tmp: Path) -> Server | str:
    binary = _beside_python("oxigraph")
    if binary is None:
        return "the oxigraph server binary is not installed (pip install oxigraph, in memkg's test extra)"
    port = free_port()
    log = tmp / "oxigraph.log"
    started = time.monotonic()
    process = subprocess.Popen(
        [binary, "serve", "--location", str(tmp / "data"), "--bind", f"127.0.0.1:{port}"],
        stdout=log.open("wb"), stderr=subprocess.STDOUT,
    )
    return _wait("oxigraph", f"http://127.0.0.1:{port}/query", process, log, started)


VIRTUOSO_INI = """\
[Database]
DatabaseFile = {dir}/virtuoso.db
ErrorLogFile = {dir}/virtuoso.log
LockFile = {dir}/virtuoso.lck
TransactionFile = {dir}/virtuoso.trx
xa_persistent_file = {dir}/virtuoso.pxa
Striping = 0
TempStorage = TempDatabase
[TempDatabase]
DatabaseFile = {dir}/virtuoso-temp.db
TransactionFile = {dir}/virtuoso-temp.trx
Striping = 0
[Parameters]
ServerPort = {sql_port}
DisableUnixSocket = 1
CaseMode = 2
DirsAllowed = {dir}
NumberOfBuffers = 10000
MaxDirtyBuffers = 6000
CheckpointInterval = 0
[HTTPServer]
ServerPort = {http_port}
ServerRoot = {dir}
ServerThreads = 4
MaxClientConnections = 4
Charset = UTF-8
[SPARQL]
; memkg needs every row: Virtuoso's default cuts results at 10000
ResultSetMaxRows = 10000000
MaxQueryExecutionTime = 60
"""


def start_virtuoso(tmp: Path) -> Server | str:
    binary, isql = shutil.which("virtuoso-t"), shutil.which("isql-vt") or shutil.which("isql")
    if binary is None or isql is None:
        return "Virtuoso is not installed (Debian: apt-get install virtuoso-opensource-7; .ci/run does it)"
    sql_port, http_port = free_port(), free_port()
    (tmp / "virtuoso.ini").write_text(VIRTUOSO_INI.format(dir=tmp, sql_port=sql_port, http_port=http_port))
    log = tmp / "virtuoso.out"
    started = time.monotonic()
    process = subprocess.Popen(
        [binary, "+configfile", str(tmp / "virtuoso.ini"), "+foreground"],
        cwd=tmp, stdout=log.open("wb"), stderr=subprocess.STDOUT,
    )
    server = _wait("virtuoso", f"http://127.0.0.1:{http_port}/sparql", process, log, started)
    # Anonymous /sparql may read but not write until the SPARQL account is granted updates.
    subprocess.run(
        [isql, str(sql_port), "dba", "dba", 'exec=GRANT SPARQL_UPDATE TO "SPARQL";'],
        check=True, capture_output=True, timeout=60,
    )
    server.startup_seconds = time.monotonic() - started
    return server
