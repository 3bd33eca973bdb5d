"""Codes (``scanner/_codes``, ``_names.code_name``): a PIN, a PUK, a card's security code, a
one-time, MFA, verification, recovery, reset or backup code, under its name in any syntax or said
in prose, redacted whatever its shape (short digits); words that hold the letters of a code's
name (``spin``, ``mapping``), other codes (``zip code``, ``status_code``, ``exit code``) and
settings about codes (``otp_length``) kept."""

from __future__ import annotations

import pytest

from rho_desk.core.export.scanner import SecretScanner
from rho_desk.core.export.scanner._codes import code_value
from rho_desk.core.export.scanner._names import code_name

_SCANNER = SecretScanner()


def _found(text: str) -> list[bytes]:
    return [h.value for h in _SCANNER.scan(text.encode())]


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("pin_code: 83920174", "83920174"),
        ("card_pin=4417", "4417"),
        ("otp: 602913", "602913"),
        ("security_code: 381", "381"),
        ("GET /verify?email=a%40b.c&reset code=552019&next=/", "552019"),
        ("https://id.example.com/r?reset_code=552019&x=1", "552019"),
        ("pin: 8392", "8392"),
        ('{"user": "ana", "otp": "602915", "remember": true}', "602915"),
        ('{"sms_code": 664021, "expires_in": 300}', "664021"),
        ("[device]\nunlock_pin = 7094\n", "7094"),
        ("ADMIN_TOTP_CODE=719304", "719304"),
        ("acme login --otp 602917", "602917"),
        ("npm publish --otp=318604", "318604"),
        ("./deploy.sh --2fa=993120", "993120"),
        ("curl -H 'X-MFA-Code: 118204' https://api.example.com", "118204"),
        ("<VerificationCode>307716</VerificationCode>", "307716"),
        ("await login({ twoFactorCode: '846102' })", "846102"),
        ("sim:\n  puk: 39201846\n", "39201846"),
        ("backup_code: 8fk2-q9zd", "8fk2-q9zd"),
        ("your code is 482910", "482910"),
        ("card PIN 7731 and SIM PIN 0915", "7731"),
        ("The recovery code 88213-40917 was used.", "88213-40917"),
        ("your authentication code: 573920", "573920"),
        ("Ihr Bestätigungscode lautet 482917.", "482917"),
        ("código de verificación: 551238", "551238"),
        ("您的验证码是 602814，5分钟内有效。", "602814"),
    ],
)
def test_a_code_under_its_name_is_redacted(text: str, code: str) -> None:
    assert code.encode() in _found(text)


@pytest.mark.parametrize(
    "text",
    [
        "spin: 4821\nping: 4821\nmapping: 4821\nopinion: 4821\npinned: 4821\nshipping: 4821",
        "zip code: 94107\npostal_code: 10115\ncountry_code: 4915\narea code 4150",
        '{"status_code": 2004, "error_code": 40301, "code": 2000, "http_code": 5030}',
        "Process finished with exit code 1374\nError code 4011: verification failed",
        "otpauth://totp/Acme:ana@example.com?issuer=Acme&period=30&digits=6",
        "otp_length: 6\notp_expiry_seconds: 3000\npin_attempts: 3\nbackup_code_count: 10",
        "#define RESET_PIN 4\nconst int LED_PIN = 13;\nesphome:\n  pin: GPIO4",
        'pin = "2.31.0"\npinned_version = "1.4.2"',
        "Example: acme login --otp 123456 (any six digits: 000000 works in the sandbox)",
        "your code 482910 is on line 12",
        "The PIN check is on line 4821 of auth.py; your code is 4096 bytes.",
        "código postal: 28001, Fehlercode 4041, Bestellnummer 4471920",
        # a card payment's approval reference, printed on its receipt
        "VISA **** 4242\nAPPROVAL CODE 48A2K1\nAuth code: 093812",
        "TERMINAL 0042 AUTH CODE 7Q2K9X REF 513015178003",
    ],
)
def test_a_look_alike_of_a_code_is_kept(text: str) -> None:
    assert _found(text) == []


@pytest.mark.parametrize(
    ("name", "digits"),
    [("pin", 4), ("SIM_PUK2", 4), ("cvv", 3), ("security code", 3), ("--token-code", 4)],
)
def test_a_code_name_says_its_fewest_digits(name: str, digits: int) -> None:
    found = code_name(name)
    assert found is not None and found.digits == digits


def test_a_pin_is_digits_and_a_backup_code_may_hold_letters() -> None:
    pin, backup = code_name("card_pin"), code_name("backup_code")
    assert pin is not None and backup is not None
    assert not code_value(b"8fk2-q9zd", pin) and code_value(b"8fk2-q9zd", backup)
    assert code_value(b"4417", pin) and not code_value(b"441", pin)
    assert not code_value(b"123456", backup) and not code_value(b"7777", pin)
