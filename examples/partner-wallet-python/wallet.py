"""A reference partner wallet in Python 3, standard library only.

What docs/partners.md ("For partners: receiving callbacks") asks a partner to build, passing every case of the wallet
certification; the same behaviour as examples/partner-wallet (Node).

- Every callback's signature and timestamp are checked first, on the raw body, in constant time.
- Each event id is decided once; a repeat gets the identical first answer; another body under a used id is refused.
- One balance per player AND currency, in integer minor units (int), never a float: JSON numbers are read as
  Decimal and balances written as decimal strings at the currency's scale.
- A bet the balance cannot cover is refused (insufficient_funds), a player it does not know too (unknown_player);
  a rollback gives back a stake taken once, and a rollback of a bet not seen yet refuses that bet if it comes.

The books are in memory: see Books.decide for what a real wallet does in one database transaction.

Configuration (environment):
  WEBHOOK_SECRET    your webhook secret of the environment this wallet serves (the test one: whsec_...); during a
                    rotation you may give both, comma-separated
  PLAYERS           the external_player_ids this wallet knows, comma-separated; any other is unknown_player
  STARTING_BALANCE  whole units a known player's balance opens with in a currency it is first seen in (default 0)
  PORT, HOST        where to listen (default 8080 on 127.0.0.1: put it behind your https:// reverse proxy)
"""

import errno
import hashlib
import hmac
import json
import os
import re
import sys
import threading
import time
from decimal import Decimal
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

# ---- Currencies ------------------------------------------------------------------------------------------------
# A callback names its currency by code ("currency": "BRL"), never its number of decimals: a wallet knows the
# currencies it holds. These are the service's: ISO 4217 with a minor unit, and the crypto codes a deployment may
# enable. A code not here is a currency this wallet holds no balance in (its callbacks are unknown_player).
BY_EXPONENT = {
    0: "BIF CLP DJF GNF ISK JPY KMF KRW PYG RWF UGX UYI VND VUV XAF XOF XPF",
    2: "AED AFN ALL AMD AOA ARS AUD AWG AZN BAM BBD BDT BGN BMD BND BOB BOV BRL BSD BTN BWP BYN BZD CAD CDF CHE CHF "
    "CHW CNY COP COU CRC CUP CVE CZK DKK DOP DZD EGP ERN ETB EUR FJD FKP GBP GEL GHS GIP GMD GTQ GYD HKD HNL HTG "
    "HUF IDR ILS INR IRR JMD KES KGS KHR KPW KYD KZT LAK LBP LKR LRD LSL MAD MDL MGA MKD MMK MNT MOP MRU MUR MVR "
    "MWK MXN MXV MYR MZN NAD NGN NIO NOK NPR NZD PAB PEN PGK PHP PKR PLN QAR RON RSD RUB SAR SBD SCR SDG SEK SGD "
    "SHP SLE SOS SRD SSP STN SVC SYP SZL THB TJS TMT TOP TRY TTD TWD TZS UAH USD USN UYU UZS VED VES WST XCD XCG "
    "YER ZAR ZMW ZWG uBTC",
    3: "BHD IQD JOD KWD LYD OMR TND",
    4: "CLF UYW",
    5: "mBTC mLTC",
    6: "USDT USDC TRX XRP",
    8: "BTC LTC BCH DOGE",
    9: "TON SOL",
    18: "ETH",
}
EXPONENTS = {code: exponent for exponent, codes in BY_EXPONENT.items() for code in codes.split()}

# ---- Amounts: exact decimal text <-> integer minor units --------------------------------------------------------
PLAIN_DECIMAL = re.compile(r"^(-?)(\d+)(?:\.(\d+))?$")


def amount_text(value):
    """A JSON amount as decimal text: an int, a Decimal (how json.loads is told to read numbers) or a string."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, Decimal):
        return format(value, "f")
    return str(value)


def to_minor(text, exponent):
    """The minor units a decimal text says ("12.5" in BRL is 1250); None if it is not one, or finer than the currency."""
    match = PLAIN_DECIMAL.match(text or "")
    if match is None:
        return None
    sign, whole, fraction = match.group(1), match.group(2), (match.group(3) or "").rstrip("0")
    if len(fraction) > exponent:
        return None
    minor = int(whole) * 10**exponent + int(fraction.ljust(exponent, "0") or "0")
    return -minor if sign == "-" else minor


def to_text(minor, exponent):
    """Minor units written at the currency's scale (1250 in BRL is "12.50"): a string, so no reader rounds it."""
    sign = "-" if minor < 0 else ""
    digits = str(abs(minor)).rjust(exponent + 1, "0")
    if exponent == 0:
        return sign + digits
    return f"{sign}{digits[:-exponent]}.{digits[-exponent:]}"


def refuse_constant(name):
    raise ValueError(f"not an amount: {name}")


def parse_exact(raw):
    """A callback's JSON with numbers read exactly (Decimal, int), never as floats: a float of a balance is how
    88.75999999999999 gets answered, which the service cannot use."""
    return json.loads(raw, parse_float=Decimal, parse_int=int, parse_constant=refuse_constant)


# ---- Signatures ---------------------------------------------------------------------------------------------------
# How old (or how far ahead) a timestamp may be: 5 minutes, as the guide says. An older one may be a replay.
TOLERANCE_SECONDS = 300


def verified(secrets, timestamp, signatures, raw_body, now=None):
    """Whether one of the callback's signatures (v1=<hex>, several during a secret rotation) is HMAC-SHA256 of
    "<timestamp>.<raw body>" with a secret we hold, and the timestamp is recent. Checked before anything else."""
    now = time.time() if now is None else now
    if not re.fullmatch(r"\d+", timestamp or "") or abs(now - int(timestamp)) > TOLERANCE_SECONDS:
        return False
    given = [signature.strip().encode() for signature in (signatures or "").split(",")]
    for secret in secrets:
        digest = hmac.new(secret.encode(), timestamp.encode() + b"." + raw_body, hashlib.sha256).hexdigest()
        expected = f"v1={digest}".encode()
        # compare_digest takes the same time whatever the bytes are (and is False for another length).
        if any(hmac.compare_digest(candidate, expected) for candidate in given):
            return True
    return False


# ---- The books -------------------------------------------------------------------------------------------------
def answer(status, body):
    return status, json.dumps(body, separators=(",", ":"))


class Books:
    """What a real wallet keeps in its database, here in memory (lost on restart: a test wallet only):
    - balances: minor units by (player, currency);
    - events: every event id decided, with what its body said and the exact answer given (keep them for as long as a
      callback can come again: notifications are retried for about 3 days, and an operator may replay one later);
    - bets: the stakes taken, by the bet's event id, so a rollback gives back exactly what was taken, once;
    - rolled_back_first: bets whose rollback came before them, to refuse them if they arrive."""

    def __init__(self, players, starting_balance):
        self.players = players
        self.starting_balance = starting_balance
        self.balances = {}
        self.events = {}
        self.bets = {}
        self.rolled_back_first = set()
        self.lock = threading.Lock()

    def balance_of(self, key, exponent):
        """A known player's balance in a currency, opened at the starting balance the first time it is seen in it."""
        if key not in self.balances:
            self.balances[key] = self.starting_balance * 10**exponent
        return self.balances[key]

    @staticmethod
    def stated(minor, exponent):
        """A balance as the service reads it: what the player can stake. A refund may take back a win the player
        already spent and leave a debt in the books; the service reads no negative balance, so a debt is answered 0."""
        return to_text(max(minor, 0), exponent)

    def decide(self, callback):
        """The decision on one verified callback: (status, body), and the books moved by it.

        ATOMICITY. Everything here happens at once or not at all: the whole decision runs under one lock, so 20
        copies of one event arriving together on 20 threads are decided one after the other: the first applies, the
        others find its answer. A real wallet does it in ONE database transaction:
          1. look the event id up (a unique key on it) and, if it is there, answer what is stored, moving nothing;
          2. lock the player's balance row in that currency (SELECT ... FOR UPDATE) and read it;
          3. decide, move the balance, record the bet or the rollback, and insert the event id with its answer;
          4. commit, and only then answer. A copy running at the same time waits on the unique key or the row lock,
             then finds the stored answer; a failure before the commit moves nothing and records nothing, so the
             retry decides."""
        kind = callback["kind"]
        # A balance moves nothing: it is answered as the books stand, whatever its event id.
        is_event = kind != "balance"
        fingerprint = json.dumps(
            [
                kind,
                callback["player"]["external_player_id"],
                callback["currency"],
                callback.get("transaction_id"),
                callback.get("round_id"),
                amount_text(callback.get("amount")),
                callback.get("rolls_back"),
            ]
        )
        with self.lock:
            if is_event and callback["event_id"] in self.events:
                seen_fingerprint, seen_answer = self.events[callback["event_id"]]
                # A repeat (a retry, a replay) gets the very answer the event got first, and moves nothing again. A
                # retry is the same body with a fresh signature (its created_at may differ); another transaction or
                # amount under a used id is no repeat: it is refused and moves nothing (a 4xx).
                if seen_fingerprint == fingerprint:
                    return seen_answer
                return answer(
                    409,
                    {
                        "error": "event_id_reused",
                        "message": "This event id was used for another callback: nothing was moved.",
                    },
                )
            decided = self.decide_new(callback)
            if is_event:
                self.events[callback["event_id"]] = (fingerprint, decided)
            return decided

    def decide_new(self, callback):
        """The decision on an event never seen before (under the lock)."""
        kind = callback["kind"]
        exponent = EXPONENTS.get(callback["currency"])
        player = callback["player"]["external_player_id"]
        key = (player, callback["currency"])
        amount = None if exponent is None else to_minor(amount_text(callback.get("amount", 0)), exponent)

        if kind == "rollback":
            # Acknowledged in every case (a 2xx, or it is retried). A stake taken is given back once, exactly as taken.
            bet = self.bets.get(callback["rolls_back"])
            if bet is not None and not bet["given_back"]:
                bet["given_back"] = True
                self.balances[bet["key"]] += bet["amount"]
            elif callback["rolls_back"] not in self.events:
                # A rollback can overtake its bet: remember it, and refuse that bet if it comes.
                self.rolled_back_first.add(callback["rolls_back"])
            return answer(200, {"ok": True})
        if exponent is None or player not in self.players:
            return answer(404, {"error": "unknown_player"})
        balance = self.balance_of(key, exponent)
        if kind == "balance":
            return answer(200, {"balance": self.stated(balance, exponent)})
        if kind == "bet":
            if callback["event_id"] in self.rolled_back_first:
                return answer(409, {"error": "rolled_back", "balance": self.stated(balance, exponent)})
            if amount > balance:
                return answer(402, {"error": "insufficient_funds", "balance": self.stated(balance, exponent)})
            self.balances[key] = balance - amount
            self.bets[callback["event_id"]] = {"key": key, "amount": amount, "given_back": False}
            return answer(200, {"balance": self.stated(balance - amount, exponent)})
        # win, refund: a refund's amount is the stake back less the round's win (negative when the win was larger).
        self.balances[key] = balance + amount
        return answer(200, {"ok": True})


# ---- Reading a callback -----------------------------------------------------------------------------------------
KINDS = {"balance", "bet", "win", "refund", "rollback"}


def problem_of(callback):
    """What is wrong with a verified callback's body before any decision (nothing is recorded), or None."""
    if not isinstance(callback, dict) or not isinstance(callback.get("event_id"), str):
        return "not a callback"
    if callback.get("kind") not in KINDS:
        return f"an unknown kind: {callback.get('kind')}"
    player = callback.get("player")
    if not isinstance(player, dict) or not isinstance(player.get("external_player_id"), str):
        return "no player"
    if not isinstance(callback.get("currency"), str):
        return "no currency"
    if callback["kind"] == "balance":
        return None
    if callback["kind"] == "rollback" and not isinstance(callback.get("rolls_back"), str):
        return "a rollback without rolls_back"
    exponent = EXPONENTS.get(callback["currency"])
    amount = 0 if exponent is None else to_minor(amount_text(callback.get("amount")), exponent)
    if amount is None:
        return f"an amount that is not a plain decimal of {callback['currency']}: {callback.get('amount')}"
    if amount < 0 and callback["kind"] != "refund":
        return f"a negative amount: {callback.get('amount')}"
    return None


# ---- The HTTP endpoint ------------------------------------------------------------------------------------------
# Callbacks are a few hundred bytes: a body past this is refused unread.
MAX_BODY_BYTES = 64 * 1024


def log(line):
    print(line, flush=True)


def make_handler(secrets, books):
    class CallbackHandler(BaseHTTPRequestHandler):
        # Keep-alive: the service reuses its connections.
        protocol_version = "HTTP/1.1"

        def send(self, status, body):
            data = body.encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self):
            if self.path == "/health":
                self.send(*answer(200, {"ok": True}))
            else:
                self.send(*answer(405, {"error": "POST a callback"}))

        def do_POST(self):
            length = self.headers.get("Content-Length")
            if length is None or not length.isdigit():
                self.close_connection = True
                return self.send(*answer(411, {"error": "Content-Length required"}))
            if int(length) > MAX_BODY_BYTES:
                self.close_connection = True
                return self.send(*answer(413, {"error": "body too large"}))
            # The raw body, byte for byte: the signature covers it, not a re-serialization of the parsed JSON.
            raw = self.rfile.read(int(length))
            headers = self.headers
            if not verified(secrets, headers.get("X-Partner-Timestamp"), headers.get("X-Partner-Signature"), raw):
                log(f"refused: invalid signature or stale timestamp (event {headers.get('X-Partner-Event-Id')})")
                return self.send(*answer(401, {"error": "invalid_signature"}))
            try:
                callback = parse_exact(raw)
            except ValueError:
                return self.send(*answer(400, {"error": "not JSON"}))
            # A test callback (the portal's button) asks only for a 2xx: it moves nothing and names no player.
            if isinstance(callback, dict) and callback.get("kind") == "test":
                return self.send(*answer(200, {"ok": True}))
            problem = problem_of(callback)
            if problem is not None:
                return self.send(*answer(400, {"error": "bad_callback", "message": problem}))
            status, body = books.decide(callback)
            log(f"{callback['kind']} {callback['event_id']} {callback['currency']}: {status} {body}")
            self.send(status, body)

        def log_message(self, format, *args):
            pass  # one line per callback is logged above

    return CallbackHandler


def listed(text):
    return [item.strip() for item in (text or "").split(",") if item.strip()]


def main():
    secrets = listed(os.environ.get("WEBHOOK_SECRET"))
    starting_balance = os.environ.get("STARTING_BALANCE", "0")
    if not secrets:
        sys.exit("Set WEBHOOK_SECRET to your webhook secret (the test one: whsec_...).")
    if not re.fullmatch(r"\d+", starting_balance):
        sys.exit("STARTING_BALANCE is whole units of any currency: 0, 100, 5000.")
    players = set(listed(os.environ.get("PLAYERS")))
    if not players:
        log("PLAYERS is empty: every player is unknown_player until you list yours.")
    books = Books(players, int(starting_balance))
    host = os.environ.get("HOST", "127.0.0.1")
    port = int(os.environ.get("PORT", "8080"))
    try:
        server = ThreadingHTTPServer((host, port), make_handler(secrets, books))
    except OSError as error:
        if error.errno == errno.EADDRINUSE:
            sys.exit(f"Port {port} is taken (EADDRINUSE): set PORT to a free one.")
        raise
    log(f"partner wallet listening on http://{host}:{port}/")
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()


if __name__ == "__main__":
    main()
