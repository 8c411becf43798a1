"""A mock text-only OpenAI backend on loopback, for the official-client
tests (`openai_client.py`, `anthropic_client.py`): it answers every chat
request with the text `choose(body)` picks, whole or streamed in 1-5
character pieces, and records the bodies it received."""
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

USAGE = {"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18}


def pieces(text):
    i, n = 0, 1
    while i < len(text):
        yield text[i:i + n]
        i += n
        n = n % 5 + 1


def start(choose, seen=None):
    """Starts the backend; returns the server (call `shutdown()`) and its
    base URL."""

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
                send({"content": piece})
            send({}, "stop")
            self.wfile.write(b"data: [DONE]\n\n")

    server = ThreadingHTTPServer(("127.0.0.1", 0), Backend)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/v1"
