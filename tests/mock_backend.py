"""A mock text-only OpenAI backend on loopback, for the official-client
tests (`openai_client.py`, `anthropic_client.py`): it answers every chat
request with the text `choose(body)` picks, whole or streamed in 1-5
character pieces, and records the bodies it received."""
import json
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

USAGE = {"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18}

# What the model writes: reasoning, text and two calls; the bare JSON call
# a forced `tool_choice` asks for (`response_format`); the answer once the
# tool results came back.
TWO_CALLS = (
    "<think>Two tools are needed.</think>\n\nLet me check both.\n"
    '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>\n'
    '<tool_call>\n{"name": "get_time", "arguments": {"tz": "Asia/Tokyo"}}\n</tool_call>'
)
BARE = '{"name": "get_time", "arguments": {"tz": "Europe/Paris"}}'
ANSWER = "It is 18 degrees in Paris."


def choose(body):
    """The answer for a request, by what it asks."""
    forced = body.get("response_format", {}).get("type") == "json_schema"
    last = body["messages"][-1]
    replied = last["role"] == "user" and "<tool_response>" in last["content"]
    return BARE if forced else ANSWER if replied else TWO_CALLS


def start_serve(binary, backend_url, *args, env=None):
    """`toolsieve serve` in front of the backend on a free loopback port;
    returns the process (terminate it) and its `/v1` URL."""
    proxy = subprocess.Popen(
        [binary, "serve", "--backend", backend_url, "--listen", "127.0.0.1:0", *args],
        stdout=subprocess.PIPE, text=True, env=env)
    url = proxy.stdout.readline().split("listening on ")[1].split(",")[0]
    return proxy, url


def pieces(text):
    i, n = 0, 1
    while i < len(text):
        yield text[i:i + n]
        i += n
        n = n % 5 + 1


def start(choose, seen=None, pace=0.0):
    """Starts the backend; returns the server (call `shutdown()`) and its
    base URL. A streamed answer's pieces leave `pace` seconds apart."""

    class Backend(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_POST(self):
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            if seen is not None:
                seen.append(body)
            output = choose(body)
            if not body.get("stream"):
                answer = {"id": "mock", "object": "chat.completion", "created": 0, "model": "m",
                          "choices": [{"index": 0, "finish_reason": "stop",
                                       "message": {"role": "assistant", "content": output}}],
                          "usage": USAGE}
                data = json.dumps(answer).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
                return
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.end_headers()

            def send(delta, finish=None):
                chunk = {"id": "mock", "object": "chat.completion.chunk", "created": 0, "model": "m",
                         "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
                self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())

            for piece in pieces(output):
                if pace:
                    time.sleep(pace)
                send({"content": piece})
            send({}, "stop")
            self.wfile.write(b"data: [DONE]\n\n")

    server = ThreadingHTTPServer(("127.0.0.1", 0), Backend)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/v1"


def stop(proxy, backend):
    """Stops `toolsieve serve` and the backend."""
    proxy.terminate()
    proxy.wait(timeout=10)
    backend.shutdown()


def report(checks):
    """Prints each check and exits non-zero if one failed."""
    for name, ok in checks:
        print(f"{'ok' if ok else 'FAILED'}: {name}")
    failed = sum(not ok for _, ok in checks)
    print(f"{len(checks) - failed} passed, {failed} failed")
    sys.exit(1 if failed else 0)
