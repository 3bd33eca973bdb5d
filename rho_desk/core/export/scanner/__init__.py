"""The secret scanner: what in a byte buffer is a secret, found by shape, by name, plain or encoded.

The package is private to ``rho_desk.core.export``; its public names are re-exported from there.
A ``SecretScanner`` (``_secrets``) reads one buffer (a JSON, Markdown or HTML export, or strings
joined by ``0xFF``) in this order:

1. **gate** (``_prefilter``): one hyperscan pass per gate database reports where each rule can
   match, so the ``re`` work below runs only there (without hyperscan, each rule is its own pass
   with the same findings);
2. **runs** (``_engine``): the runs of base64/identifier bytes, split into short runs (token
   candidates) and blobs (long base64 or hex, decoded in step 6);
3. **token rules** (``_rules``, ids and ``Hit`` in ``_catalogue``, the vendors' token table in
   ``_vendors``): vendor tokens, JWTs, keys by their prefix, a token whose prefix names a secret,
   over the runs; and the credentials rho-desk holds, literally (``known_forms``);
4. **keyword rules** (``_rules``, ``_grammar``, ``_commands``; names read by ``_names``, values
   by ``_values``, literals joined in code into one value by ``_joined``):
   headers (``Basic`` credentials wherever they stand: ``_basic``), URLs, private-key blocks,
   values under a credential name on their name's line, keys by their vendor's name
   (``_vendors``), and the flags and positions of command lines, over the
   text without the blobs' bodies; then **structure** (``_structure`` confirms the lines the
   gate's structure rules report, ``_lines`` peels the lines' wrappers (``12:``, ``path:12:``,
   a diff's ``+``), ``_window`` decodes the text around each (JSON escapes, nested) and maps
   hits back, ``_reader`` reads it as its syntax says:
   block scalars, heredocs, tables, a name in a field of its own, ``NAME value`` lines; and
   command lines split as a shell splits them (``_argv``), read by their client's options and
   positions in ``_clients``' table, with a value piped into ``--password-stdin``, and every
   command, in the table or not, by what its words say (``_args``: an option's letters, a verb
   of authentication, a user joined to its password, a key's shape); directive
   lines' words in ``_words``: ``password 0 X``, ``PASS X``; a client's call read by its callee
   and where a literal stands among its arguments in ``_calls``: ``basic_auth("u", Some("X"))``,
   ``connect(host, 22, "u", "X")``, ``ServerClient("<uuid>")``, ``"%s:%s"`` of two literals;
   tables split by ``_tables``); **prose** (``_prose``): a
   credential noun said in words, in English or another language, a few words, a verb or a sign,
   then the value ("the passphrase … is '…'", ``Passwort … lautet X``, ``密码是 X``, recovery
   codes listed under their label; a tool's ``New value: X`` under a line naming a credential);
   **codes** (``_codes``): a PIN, a one-time, MFA, verification, recovery or backup code under
   its name (``_names.code_name``) in any syntax or in prose, by a code's shape (short digits);
   **sentences** (``_sentences``): a word shaped as a password or a token on the line of a
   credential noun of any language (``_nouns``' table of stems), whatever the words between;
   **generated words** (``_generated``): a word shaped as a generated password standing apart,
   whatever the language around it names it with; and in prose (a text block's or a reasoning
   summary's line of an export, ``prose_words``) every word with a digit, read by that shape
   without the gate's symbols, unless it reads as a name (few pieces between its dashes);
   **transcripts** (``_transcripts``): a shell's or a REPL's prompt line naming a credential and
   the value printed on the line after it, Redis' numbered replies; **key material**
   (``_material``): lines of key material or codes that what stands around them names (an
   armored block's label, a heading naming recovery codes, a cipher, a key's name before a
   list of byte values, a google-authenticator file's option lines); **records** (``_records``):
   a password by its place in a record (Dovecot's ``{PLAIN}X``, ipsec.secrets' ``: EAP "X"``, a
   Wi-Fi QR payload's ``P:X;``, the records under a comment naming their file or layout); then
   random-looking values where a credential stands (``_entropy``) and an AWS secret key next to
   its id;
5. **views** (``_views``): the same text normalised (shell continuations and every
   default-ignorable code point removed, NFKC and look-alike letters folded, ``\\/`` unescaped),
   scanned again around each place, as one buffer;
6. **decoded regions** (``_decoders``): URL-encoding, escapes, base64/base32/hex (wrapped or
   not), dumps (``_views``), byte lists (``_lists``), uuencode, git's base85 and Ascii85
   (``_linecodes``), UTF-16, compressed and raw deflate streams, decoded and scanned again as one
   buffer, down to four levels; hits are mapped back to the bytes they came from.

Before the scan, ``_printers`` reads each tool call with its result: what a command that prints a
secret printed (``op read``, ``terraform output -raw``, ``cat`` of a credential-named file) is
found literally, as a known secret is (rule ``printed-secret``).

Every step counts the bytes it reads (``_work``), so a test can check that the work stays linear.
"""

from ._catalogue import RULES, RULESET_VERSION, Hit, fingerprint, merge_hits
from ._engine import line_diff
from ._prefilter import PARALLEL_MIN, workers
from ._printers import tool_values
from ._secrets import SecretScanner

__all__ = [
    "PARALLEL_MIN",
    "RULES",
    "RULESET_VERSION",
    "Hit",
    "SecretScanner",
    "fingerprint",
    "line_diff",
    "merge_hits",
    "tool_values",
    "workers",
]
