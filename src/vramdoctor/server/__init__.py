"""Talking to inference servers: HTTP (http.py, the one module that imports httpx), the OpenAI-compatible
client (client.py), and launching a server (launch.py, the one module that starts processes)."""
