"""Kinds of fault found from stop 47 on (held-out rounds 449 and later, and the items stop 46 left), each in several
wordings of our own, with guards that the fix does not overreach."""

from __future__ import annotations

import pytest
from logcase import kind_of

_VLLM_SERVING = ["INFO 05-01 10:00:00 [api_server.py:1000] vLLM API server version 0.9.1",
                 "INFO 05-01 10:00:05 [gpu_model_runner.py:1000] Model loading took 14.99 GiB and 5.1 seconds",
                 "INFO:     Application startup complete.",
                 'INFO:     127.0.0.1:5000 - "POST /v1/chat/completions HTTP/1.1" 200 OK']


# --- a dash begins a clause of its own: a denial before it does not deny what follows (stop 46's review)

@pytest.mark.parametrize("said", [
    "The second request never returns - it just hangs forever.",
    "Generation never finishes \u2014 the server simply hangs.",
    "Nothing crashes \u2013 it just hangs after the first request.",
])
def test_a_hang_after_a_dash_is_stated(said):
    assert kind_of([said, *_VLLM_SERVING]) == ("UNDETERMINED", "hang-no-error")


@pytest.mark.parametrize("said", [
    "The server never hangs - it answers every request.",
    "It does not - as far as I can tell - hang on the second request.",
])
def test_a_hang_denied_in_its_own_clause_is_not(said):
    assert kind_of([said, *_VLLM_SERVING])[0] == "NONE"


# --- Ollama's runner aborts an answer, then its router logs the failed response: the client's close explains the 500
# in either order (stop 46's review)

_OLLAMA_UP = [
    'time=2025-03-10T10:00:00.112Z level=INFO source=routes.go:1205 msg="Listening on [::]:11434 (version 0.6.0)"',
    'time=2025-03-10T10:00:05.312Z level=INFO source=server.go:410 msg="starting llama server" cmd="/usr/bin/ollama '
    'runner --model /root/.ollama/models/blobs/sha256-2bada8a74506 --ctx-size 8192 --n-gpu-layers 29 --port 41233"',
    'time=2025-03-10T10:00:08.830Z level=INFO source=server.go:624 msg="llama runner started in 3.52 seconds"',
    '[GIN] 2025/03/10 - 10:00:12 | 200 |  7.210332s |       127.0.0.1 | POST     "/api/chat"']
_ABORT = ('time=2025-03-10T10:30:00.000Z level=INFO source=server.go:850 msg="aborting completion request due to client '
          'closing the connection"')


@pytest.mark.parametrize("answer", [
    '[GIN] 2025/03/10 - 10:30:00 | 500 |        10m0s |       127.0.0.1 | POST     "/api/chat"',
    '[GIN] 2025/03/10 - 10:30:00 | 500 |          5m0s |      172.17.0.1 | POST     "/v1/chat/completions"',
    '[GIN] 2025/03/10 - 10:30:00 | 500 |  2m13.507882s |       127.0.0.1 | POST     "/api/generate"',
])
def test_a_client_that_went_away_explains_the_500_below_it(answer):
    assert kind_of([*_OLLAMA_UP, _ABORT, answer]) == ("NOT_OOM", "client-closed-connection")
    assert kind_of([*_OLLAMA_UP, answer, _ABORT]) == ("NOT_OOM", "client-closed-connection")


def test_a_client_that_stopped_a_stream_is_no_failure():
    answer = '[GIN] 2025/03/10 - 10:30:00 | 200 |  2m13.507882s |       127.0.0.1 | POST     "/api/chat"'
    assert kind_of([*_OLLAMA_UP, _ABORT, answer])[0] == "NONE"
    assert kind_of([*_OLLAMA_UP, _ABORT])[0] == "NONE"


def test_a_500_far_below_a_clients_close_is_not_explained_by_it():
    later = ['[GIN] 2025/03/10 - 10:30:01 | 200 |  1.1s |       127.0.0.1 | POST     "/api/chat"'] * 4 + [
        '[GIN] 2025/03/10 - 10:40:00 | 500 |  1.2s |       127.0.0.1 | POST     "/api/chat"']
    assert kind_of([*_OLLAMA_UP, _ABORT, *later])[1] != "client-closed-connection"


# --- the Python exception in the traceback under an engine's own words for what failed is their detail: vLLM's tool
# parser names the failure more closely than its JSONDecodeError (stop 46's review)

@pytest.mark.parametrize("parser, raised, error", [
    ("hermes_tool_parser.py:115", 'raise JSONDecodeError("Expecting value", s, err.value) from None',
     "json.decoder.JSONDecodeError: Expecting ',' delimiter: line 1 column 87 (char 86)"),
    ("llama_tool_parser.py:120", "raise KeyError(key)", "KeyError: 'name'"),
    ("mistral_tool_parser.py:140", "raise IndexError('list index out of range')", "IndexError: list index out of range"),
])
def test_a_tool_calls_traceback_keeps_its_code(parser, raised, error):
    head = f"ERROR 05-14 09:20:41 [{parser}] "
    lines = [*_VLLM_SERVING, head + "Error in extracting tool call from response.",
             head + "Traceback (most recent call last):",
             head + '  File "/usr/local/lib/python3.12/dist-packages/vllm/entrypoints/openai/tool_parsers/x.py", line 95,'
                    " in extract_tool_calls",
             head + "    raw_function_calls = [",
             head + '  File "/usr/lib/python3.12/json/decoder.py", line 355, in raw_decode',
             head + "    " + raised,
             head + error,
             'INFO:     127.0.0.1:5002 - "POST /v1/chat/completions HTTP/1.1" 200 OK']
    assert kind_of(lines) == ("NOT_OOM", "tool-call-parse-error")
