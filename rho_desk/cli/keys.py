"""``rho-desk keys [--key-file FILE]``: the public key that signs your export receipts, and where
rho-desk's own keys live.

Give the printed ``ed25519:…`` line to whoever receives your exports; they check an export with
``rho-desk audit FILE --verify-key ed25519:…``. The signing key is created on first use (in the
keyring, or in the key file when there is no secure keyring, with a one-line notice).
"""

from __future__ import annotations

import argparse

from .export import add_key_file_option, key_source
from .status import EXIT_OK


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "keys",
        help="print the public key that signs export receipts, and where rho-desk's keys live",
        description=(
            "Print the public key of the receipt signing key (give it to the people you send exports "
            "to: `rho-desk audit FILE --verify-key KEY`), and where rho-desk's own keys are kept."
        ),
    )
    add_key_file_option(parser)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from ..core.export import public_key_text, signing_key
    from ..core.secrets.keys import FINGERPRINT_KEY, SIGNING_KEY
    from ..keys import DefaultKeySource, keyring_status

    keys = key_source(args)
    public = public_key_text(signing_key(keys))
    print(public)
    status = keyring_status()
    state = (
        "secure"
        if status.secure
        else "not secure: not used for new keys"
        if status.available
        else f"not usable: {status.problem}"
        if status.problem
        else "none"
    )
    print(f"keys: {keys.describe()}")
    if isinstance(keys, DefaultKeySource):
        for name in (SIGNING_KEY, FINGERPRINT_KEY):
            print(f"  {name}: {keys.locate(name) or 'not created yet'}")
    print(f"keyring: {status.backend} ({state})")
    return EXIT_OK
