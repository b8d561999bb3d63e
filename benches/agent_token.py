#!/usr/bin/env python3
"""Prints an agent's OAuth access token for benches/http.sh (AGENT=1): registers a client, signs
in on /login, allows everything on the consent page and exchanges the code — the browser flow,
with the standard library only.

    benches/agent_token.py BASE_URL EMAIL PASSWORD ORG_ID
"""
import base64
import hashlib
import html
import http.cookiejar
import json
import re
import secrets
import sys
import urllib.parse
import urllib.request

base, email, password, org = sys.argv[1:5]
redirect = "http://127.0.0.1:9/callback"


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


jar = http.cookiejar.CookieJar()
opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar), NoRedirect)


def send(path, form=None, body=None):
    data, headers = None, {}
    if form is not None:
        data = urllib.parse.urlencode(form, doseq=True).encode()
        headers["Content-Type"] = "application/x-www-form-urlencoded"
    if body is not None:
        data = json.dumps(body).encode()
        headers["Content-Type"] = "application/json"
    request = urllib.request.Request(base + path, data=data, headers=headers)
    try:
        with opener.open(request) as resp:
            return resp.status, resp.headers, resp.read().decode()
    except urllib.error.HTTPError as err:
        return err.code, err.headers, err.read().decode()


def hidden(page, name):
    match = re.search(rf'name="{name}" value="([^"]*)"', page)
    return html.unescape(match.group(1)) if match else ""


status, _, text = send("/oauth/register", body={"client_name": "Bench agent", "redirect_uris": [redirect]})
client_id = json.loads(text)["client_id"]
_, _, login = send("/login")
status, _, _ = send("/login", form={"csrf_token": hidden(login, "csrf_token"), "email": email, "password": password})
assert status == 303, f"sign-in answered {status}"
verifier = secrets.token_urlsafe(48)
challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
query = urllib.parse.urlencode({"response_type": "code", "client_id": client_id, "redirect_uri": redirect,
                                "code_challenge": challenge, "code_challenge_method": "S256"})
_, _, page = send(f"/oauth/authorize?{query}")
scopes = [html.unescape(s) for s in re.findall(r'name="scope" value="([^"]*)"', page)]
status, headers, _ = send("/oauth/authorize", form={"csrf_token": hidden(page, "csrf_token"),
                                                    "request_id": hidden(page, "request_id"), "org_id": org,
                                                    "scope": scopes, "decision": "allow"})
assert status == 303, f"consent answered {status}"
code = urllib.parse.parse_qs(urllib.parse.urlparse(headers.get("Location")).query)["code"][0]
_, _, tokens = send("/oauth/token", form={"grant_type": "authorization_code", "code": code, "redirect_uri": redirect,
                                          "client_id": client_id, "code_verifier": verifier})
print(json.loads(tokens)["access_token"])
