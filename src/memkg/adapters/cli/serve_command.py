"""`memkg serve`: the HTTP endpoint (memkg.adapters.endpoint) over a store directory."""

from __future__ import annotations

import argparse
import errno
import socket
from pathlib import Path

from ..endpoint import ServeOptions, serve
from .arguments import add_limit_arguments, limits_from
from .exit_codes import UsageError
from .registry import AddCommand


def cmd_serve(args: argparse.Namespace) -> int:
    if args.timeout is not None and args.timeout < 0:
        raise UsageError("--timeout takes a number of seconds (0: no limit)")
    if args.workers < 0:
        raise UsageError("--workers takes a positive number (0: two per CPU)")
    if args.max_body is not None and args.max_body < 0:
        raise UsageError("--max-body takes a number of bytes (0: no limit)")
    # Unset: memkg.adapters.endpoint's default, not repeated here (importing that package when the
    # parser is built would cost every other command 75 ms).
    limits = {} if args.max_body is None else {"max_body": args.max_body or None}
    _check_port_free(args.host, args.port)  # at once, before the store and the workers start
    options = ServeOptions(
        store=Path(args.store),
        host=args.host,
        port=args.port,
        tokens=Path(args.tokens) if args.tokens else None,
        read_only=args.read_only,
        timeout=args.timeout or None,
        workers=args.workers,
        log_requests=args.log_requests,
        limits=limits_from(args),
        **limits,
    )
    try:
        return serve(options)
    except OSError as err:
        if err.errno == errno.EADDRINUSE:  # taken meanwhile
            raise UsageError(_port_in_use(args.host, args.port)) from None
        raise


def _port_in_use(host: str, port: int) -> str:
    return (f"port {port} on {host} is in use (another memkg serve?): pick another with --port N, "
            "or --port 0 for a free one")


def _check_port_free(host: str, port: int) -> None:
    """UsageError naming the port when something already listens there."""
    if port == 0:
        return
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as the server binds
        try:
            probe.bind((host, port))
        except OSError as err:
            if err.errno == errno.EADDRINUSE:
                raise UsageError(_port_in_use(host, port)) from None
            if err.errno == errno.EADDRNOTAVAIL:
                raise UsageError(f"{host} is not an address of this machine (--host)") from None
            raise


def register(command: AddCommand) -> None:
    """The serve command, its endpoints listed after the options."""
    p = command(
        "serve",
        "Serve the store over HTTP: SPARQL 1.1 Protocol, Graph Store Protocol, views and a query page.",
        "memkg serve --port 7878 --timeout 30",
        cmd_serve,
    )
    p.epilog = f"{p.epilog}\n\n{SERVE_EPILOG}"
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default: 127.0.0.1)")
    p.add_argument("--port", type=int, default=7878, help="port to listen on; 0 picks a free one (default: 7878)")
    p.add_argument(
        "--tokens", metavar="FILE",
        help='bearer tokens, JSON {"TOKEN": {"tenants": [GRAPH-IRI, …], "write": true|false}}; '
        "without it every request may read and write everything",
    )
    p.add_argument("--read-only", action="store_true", help="refuse every write (403)")
    p.add_argument(
        "--timeout", type=float, default=60.0, metavar="SECONDS",
        help="stop a query running longer than this and answer 503 (default: 60; 0: no limit)",
    )
    p.add_argument(
        "--workers", type=int, default=0, metavar="N",
        help="query worker processes, the queries that can run at once (default: two per CPU, at most 16)",
    )
    p.add_argument(
        "--max-body", type=int, metavar="BYTES",
        help="refuse a request body larger than this with 413 (default: 1 GiB; 0: no limit)",
    )
    add_limit_arguments(p, "max_depth", "max_literal", "max_query", "max_update")
    p.add_argument("--log-requests", action="store_true", help="log every request to standard error")


SERVE_EPILOG = """\
endpoints:
  GET  /                          a query page (works offline)
  GET|POST /sparql                SPARQL query: ?query=… or a POSTed form or application/sparql-query body;
                                  default-graph-uri / named-graph-uri set the dataset
  POST /update                    SPARQL Update: a form (update=…) or application/sparql-update body
  GET|HEAD|PUT|POST|DELETE /store Graph Store Protocol: ?default or ?graph=IRI (GET /store: all graphs)
  GET  /views, /views/NAME?k=v    list the view templates; run one (tenant=IRI selects a tenant)
  GET  /recall?q=…&tenant=…&k=…   recall: a question in words to ranked evidence, as JSON (&packet=true)
  GET  /pictures, /pictures/KIND  pictures of a claim: ?claim=IRI, KIND history, lineage, support or packet
  GET  /health                    liveness, as JSON

Results follow the Accept header (q-values honoured; 406 if nothing fits) or ?format=NAME:
  tables: json, xml, csv, tsv; graphs: turtle, ntriples, trig, nquads, rdfxml.
Writes are validated like every memkg write (400 with the violations, nothing written).
Queries, recall and pictures run in worker processes on snapshots of the store; one past --timeout is
killed. Updates are planned there too, then applied here; one past --timeout is killed and nothing is
written. A Graph Store body is parsed here, within --timeout, before the write lock is taken; a
write's validation under the lock stops at --timeout too (503, nothing written).
With --tokens every route needs a token (/health without one answers only {"status": "ok"}), and the
workers run in a network sandbox (seccomp): no SERVICE or LOAD reaches the network. Without seccomp
(not Linux on x86_64/aarch64), --tokens refuses to start. Limits: see docs/endpoint-security.md.
SIGTERM or Ctrl-C: finish requests in flight (within --timeout, else 10 s), close the store, exit 0
(130 after Ctrl-C).

with curl:
  curl -H 'Accept: text/csv' 'http://127.0.0.1:7878/sparql?query=SELECT%20*%20WHERE%20%7B?s%20?p%20?o%7D%20LIMIT%205'
  curl -X PUT -H 'Content-Type: application/trig' --data-binary @examples/lia-tea.trig \\
       'http://127.0.0.1:7878/store?graph=https://example.org/tenants/lia'
  curl 'http://127.0.0.1:7878/views/current?tenant=https://example.org/tenants/lia'
"""
