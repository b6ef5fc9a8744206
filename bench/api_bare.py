"""A bare Flask JSON endpoint, the ceiling bench/api.py measures the Preview API against.

It reads the JSON body and answers a small JSON object: the work every JSON endpoint does
before it does anything of its own. Served by gunicorn with the API's own settings.
"""

from flask import Flask, jsonify, request

app = Flask(__name__)


@app.post("/bare")
def bare():
    """Parse the body, answer with one field of it."""
    body = request.get_json()
    return jsonify({"result": "SUCCESS", "fields": len(body)})
