"""The rule catalogue as data: what the scanner reports, under which names, and how.

The rule ids and what each finds (``RULES``, and the Markdown table docs/security.md carries),
the version of the rules that receipts record (``RULESET_VERSION``), the ``Hit`` a rule reports
(its value hidden from ``repr``), the keyed fingerprint that stands for a value in reports,
overlapping hits merged, and the placeholders (``ghp_xxxx…``, a URL's ``user:password@``) that
are not reported.
"""

from __future__ import annotations

import hashlib
import hmac
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Final

from ._vendors import VENDOR_NAMED

__all__ = [
    "ALWAYS_KEPT",
    "CATALOGUE_BEGIN",
    "CATALOGUE_END",
    "KNOWN_SECRET_MIN_LENGTH",
    "PLACEHOLDER_RUN",
    "RULES",
    "RULESET_VERSION",
    "SEPARATOR",
    "Hit",
    "fingerprint",
    "known_handler",
    "merge_hits",
    "placeholder",
    "placeholder_password",
    "rule_catalogue",
]

KNOWN_SECRET_MIN_LENGTH: Final = 6
"""Known secrets shorter than this are not searched: they would match ordinary text."""

SEPARATOR: Final = b"\xff"
"""Joins strings into one scan buffer; never part of UTF-8, so no match crosses it."""

RULESET_VERSION: Final = 95
"""The version of the rules and decoders below; receipts record (and sign) it. Raised whenever what
the scanner finds changes (a rule, an encoding, a bound). 2: escape-aware boundaries, wrapped,
nested and compressed encodings, zero-width characters, the vendor catalogue. 3: the credential
grammar (names, flags, .netrc, .pgpass, auth tuples; values to the end of their quote), URL
userinfo with an empty user, non-PEM private keys, line-prefixed wrapped blocks, continuations,
hex dumps, octal escapes, base32, bzip2, NFKC and look-alike folding. 4: gitleaks' per-rule
samples: XML element text on its own line, typed and Go/make/PHP assignments, quoted name-value
pairs and NuGet's key/value attributes, backquoted values, Kubernetes Secret manifests, Bundler
credentials, schemeless Slack and Teams webhooks, API keys passed as curl's user name, Adobe and
Facebook app secrets, JWTs with a short header, letters-only Hugging Face tokens, the head of long
base64 runs; placeholders (one repeated character), public and anti-forgery names and empty
private-key blocks left alone. 5: command lines: any long flag named as a credential, the short
password flags of the common clients, passwords by position, echo into --password-stdin, SQL's
IDENTIFIED BY and PASSWORD, a password named then given after a space (quoted, or after "is"),
names of two words ("Secret Key = "); octal escapes of one or two digits. 6: an Authorization
value that ends with ":" is the next header's name, not a credential; an escape or percent
escape with no token byte next to it (`` \u0073 ``) is not decoded (it decodes to one character);
an escaped value is decoded with the ``NAME=`` or ``NAME:`` before it. 7: the keys of model and
AI-tool vendors (Groq, xAI, Tavily, Pinecone, LangSmith, OpenRouter, Replicate, Fireworks,
Together, ElevenLabs, Voyage, Firecrawl, Cerebras, NVIDIA, Jina, E2B, Resend) and of developer
platforms (Supabase, Tailscale, PostHog, Deno, Figma, Netlify, Rootly, Ramp, Bitbucket), and any
token whose prefix names a secret; a URL's password to the last ``@`` before the host; every
default-ignorable code point and combining mark removed, NFKC's ASCII letters folded (mathematical
letters), Greek look-alikes, ``\\/`` unescaped, ``\\u{…}`` and ``\\x{…}`` decoded; byte lists,
uuencode, git's base85, Ascii85, UTF-16, raw deflate, lower-case base32 and od's dumps of numbers
behind a line prefix decoded; the keys of seventy vendors by their name beside them, and every
other rule of gitleaks' set (Lob, GoCardless, Plaid, Sonar, ClickHouse, Authress, Terraform,
MaxMind, routable GitLab tokens). 8: structure: values off
their name's line (block scalars, continued quotes, TOML triple quotes, heredocs, continued
properties, XML text on the next line, objects under a credential name), names not beside their
values (terraform's sensitive, Kubernetes Secrets read per value, name and value fields, tables by
their header, SQL's SET PASSWORD FOR), NAME value lines, read through row, grep, diff and hashline
wrappers and JSON escapes; a value under a credential name whatever its shape (letters only,
spaces, six digits or more); lines of configuration read to their end; string prefixes, YAML
anchors, Oracle's unquoted IDENTIFIED BY, psk; a name after an escaped line break; a wrapped
base64 block's short last line; JSON escapes at depth two before a run. 9: prose (a credential
noun in English or another language, a few words, a verb or a sign, then the value; a question
answered on the next line), values named by a call (``.password("X")``, ``kAuthToken{"X"}``), by an
XML element's attributes, by Oracle's ``user/X@``; standard-input switches (``sudo -S``,
``htpasswd -i``...), quoted glued options; .pgpass and PuTTY lines in tool rows; Neon keys; masks
(``sk-...9fQa``, ``****ABCD``, ``(sensitive value)``), base64 of a sentence and a row number's
base64 line left alone. 10: an XML element's attributes begin after a space and each has a
``name=`` (``<TOKEN,>x</`` is not an element). 11: a credential name padded wider than four
spaces from its operator or value (aligned output: ``kubectl describe``, ``pm2 env``, aligned
settings), a credential pair among other pairs on its line (logfmt, conninfo strings,
``Environment=``) read to the next pair, a .pgpass line after an escaped line break; names ending
in ``model`` or ``class`` hold no credential. 12: a variable (``$TOKEN``, ``$env:TOKEN``,
``%TOKEN%``) as an Authorization header's value is no secret; an XML element without its end tag,
or after ``=``/``:`` (``API_KEY=<your-api-key>``), is a placeholder, and its next lines no value.
13: Go's MySQL DSN, ``user:password@tcp(host)/db`` (and ``unix(…)``, ``udp(…)``). 14: a SQL
column's type (``char(64)``, ``varchar(255),``, ``uuid``, ``bytea``...) is no value. 15: a
credential-named value starting with an escaped backslash (``TOKEN: \\\\abc`` in JSON) passes the
gate as it passes the plain scan. 16: an element right after ``=``/``:`` whose text and end tag
are on its line (``body=<password>X</password>``) is an element, not a placeholder. 17: HTML
numeric character references decoded (``&#80;``, ``&#x50``, ``\\u0026#80;`` of Go's JSON, among
named ones and plain bytes); an HTML password field's ``value``. 18: an assignment's value
(``password=…``, ``api_key=…``) has a digit within its first 128 bytes, and a name inside another
name's value is found whether or not that value is a placeholder (``secret=kkkk…secretc:X1``). 19:
credential nouns of other languages in names (``SENHA_BANCO``, ``"wachtwoord"``, ``haslo``,
``MOT_DE_PASSE``, ``KENNWORT``); ``<key>NAME</key>`` then the next element's text (plist),
``<Password>`` holding a ``<Value>`` child (unattend.xml); a reference to a secret's store is no value (``arn:aws:…``, ``op://…``,
``projects/…/secrets/…``, a name ending in ``arn``, Helm's ``existingSecret``), nor a label of
several words naming it (``Forgot password?``); a command's one-word output that reads as a
credential when its subcommand, operand or selector names one (``jq -r .password``,
``--query …SecretAccessKey``, ``argocd admin initial-password``); a directive's words inside a
JSON string end at its closing quote; prose's value in typographic quotes (``« X »``, ``„X“``,
``“X”``, ``「X」``). 20: a directive typed at a client's prompt (``127.0.0.1:6379> AUTH X``):
the prompt's ``>`` is no redirection. 21: a value read after JSON's
``\\\\t`` (a backslash and ``t`` in the text) starts at the backslash, not after the ``t``. 22:
a key qualified as one that opens something (``UNSEAL_KEY``, ``RECOVERY_KEY``, ``DECRYPTION_KEY``,
``cipherKey``, crypto, wrapping) is a credential name, its value redacted whatever its shape. 23: a
printer's output is no secret when its selector picks what is about the secret (``-o
jsonpath='{.metadata.name}'``, ``--query Parameter.Name``, ``-field=username``). 24: a subcommand that reads its secret from standard input
(``vault login -``, ``docker secret create NAME -``, ``gh secret set NAME``, ``wrangler secret
put``, ``secret-tool store``) takes what is piped or given as a heredoc into it, also after a
prompt's ``$``. 25: a cookie string given to curl's ``-b``/``--cookie`` or ab's ``-C``: each
value under a name saying session (``JSESSIONID``, ``connect.sid``, ``sessionid``) or credential,
or reading as one; a cookie file's name is no value. 26: ``KEY`` after a word the grammar
does not know, a vendor's or a service's name (``SENDGRID_KEY=SG.x.y``, ``REVENUECAT_KEY =
appl_x``, ``segmentKey``), holds a credential when its value reads as a vendor's token: one word
whose longest part is random (``_grammar.vendor_token``); not a routing, partition, cache,
idempotency, object or translation key. 27: a command not in the clients' table given a user
by ``-u``/``--user`` (``-U``) and a value by ``-p`` (``-P``) a few words apart: the value is a
password whatever its shape (``cypher-shell -u neo4j -p 'w-w-w'``), unless a port, a number or a
path. 28: ``pw`` ending a name (``olcRootPW``, ``DB_PW``, ``dbPw``, ``pw =``) is in the name
rule's keyword lists and gate, so its value is redacted whatever its shape; ``pw`` elsewhere in a
name (Playwright's ``PW_TEST_…``) names no credential, nor ``PWD``/``OLDPWD`` holding a path (the
shell's working directory). 29: a call named ``auth`` takes the password as its last string
literal (``red:auth("X")``, ``$redis->auth('X')``, ``db.auth("user", "X")``, before a callback),
whatever its shape. 30: without hyperscan, the structure pass's candidate lines also hold ``-p``
and the standard-input programs' names (``vercel``, ``wrangler``...), so the ungated scan reads
the command lines of 24 and 27 as the gated one does. 31: a token as a URL's path segment after
a segment naming it (conda's ``/t/<token>/``, ``/token/``, ``/tokens/``, ``/apikey/``,
``/secret/``), when it reads as a vendor's token (``vendor_token``: a topic's slug or an id is
left alone); rule ``url-password``. 32: ``NAME=value`` after a command's words (``docker run -e
NAME=X img``) is one argument, its value one word (was the rest of the line); in text,
``NAME=\\t…`` is redacted from the backslash (a shell reads ``t…``). 33: ApacheBench's ``ab -C`` is no longer read (``ab`` as a
client's name gated every hex dump's ``AB`` byte: byte lists scanned at a quarter of the speed).
34: a bare value that ends its line goes on over the next, one word a line: a YAML plain scalar
over the lines deeper than its name, a value the terminal wrapped (its line 60 columns or longer)
at the next line's start (structure trigger ``value-wrapped``). 35: the name rule takes a value
led by backslashes and a ``t`` (``AUTH_TOKEN=\\t7Gk…`` at a line's start, after ``export`` or
``env``) from the first backslash; it found nothing there (the rest was the entropy rule's, the
``t`` left). 36: entropy in context reads a cell of aligned columns (two spaces or more
before it) as a value's place when its column's header and its row's first cell say neither
identifier nor digest; a cell split by ``|``, ``,`` or a tab is no value's place either when its
row's first cell says so (``etag``, ``SPAN_ID``). 37: prose knows the credential noun
of 33 more languages as stems that take their inflection (``lösenordet``, ``şifresi``, Thai's glued
words), and after one with no link word it knows, takes the first ASCII word of the next seven on
the line that reads as a credential. 38: a name word ending in ``pass`` after a service's name
(``smtppass``, ``rootpass``, ``ldappass``; not ``bypass``, ``compass``…) names a password. 39: a
line of configuration may be indented by JSON-escaped tabs (``\\t``, gitconfig's keys in an
export), as by raw ones. 40: a tool's ``New value: X`` (``Generated
value:``, ``Current value:``), the value alone on its line and reading as a credential, when one of
the three lines above names a credential in words (elasticsearch-reset-password). 41: prose's
passphrase of plain words: two to six lower-case words after a credential noun's ``is``/``was``,
ending the sentence, none a word that makes it one about the password (``stored``, ``too``).
42: a key said to be public is no credential
(``public key: X``, ``pubkey:``, ``peer:``, ``minisign public key …`` in prose and directives), a
structured field's byte sequence is named by its label (``sha-256=:…:``, RFC 9530), and the
WebSocket handshake's nonce and answer (``Sec-WebSocket-Key``, ``-Accept``) are no key. 43: an Authorization header's scheme may be any word
(``Splunk``, ``GenieKey``, ``Klaviyo-API-Key``): the credential after it is redacted, not the
scheme; a variable or a ``<placeholder>`` after a scheme is nothing to hide. 44: a name glued
before ``pass`` that says what kind of pass it is, a renderer's or compiler's step or a filter
(``firstpass``, ``renderpass``, ``highpass``), names no password. 45: after a scheme the
Authorization rule does not know, the value must have a letter and a digit (``"authorization":
"none configured …"`` is prose). 46: a structure trigger line printed again is read each time what
follows it says so (a name alone before a quoted value, a wrapped value): the gated scan kept the
verdict of its first printing, after which no value came, and missed the value of a later one.
47: the word ``pass`` after a word saying what kind of pass it is, apart as glued
(``render_pass``, ``shadowPass``, ``LOW_PASS``), names no password.
48: an Authorization value with no scheme that is a lower-case word followed by another, or a
status word, is prose (``Authorization: required for every endpoint``, ``"authorization":
"missing"``).
49: an INI section's name may hold ``/``, ``:``, ``@``, ``*``, ``+``, ``~`` and escaped quotes, in
one or two brackets (``[domain/acme]``, ``[program:worker]``, ``[credential \\"https://…\\"]``,
``[[servers]]``): ``name = value`` under it is configuration's.
50: a tab between a name and its operator may be JSON-escaped (``Password\\t= X``; the name
pass's gates read it too).
51: the structure reader's inline names may begin with a digit (nmcli's ``802-1x.password:``);
a name ending in ``flag(s)`` is about the credential (``psk-flags: 0 (none)``).
52: a name ending in ``key`` and then ``content`` or ``material`` names the key itself
(``KeyMaterial``, ``WIFI_KEY_CONTENT``; not a cache's or a partition's).
53: command lines: a client's password as the n-th word after
its option (``steamcmd +login user X``, ``mkstore -createCredential db user X``), an option of
one subcommand (``conan remote login … -p X``, ``security add-generic-password -w X``), by
position (``wandb login X``, ``cf auth user X``); read from standard input (``--passwd-on-stdin``,
``-passfile /dev/stdin``, ``password=-``, ``echo X | wg pubkey``, ``pass insert``) or given by a
substitution (``private-key <(echo X)``); a path after a directive's credential word is its value
(``private-key /etc/wg0.key peer <public key>``).
54: ApacheBench's ``ab -C NAME=X``, ``-A user:X``, ``-P user:X`` (a client whose name is a hex byte,
gated by the name before an option); Redis' wire protocol as ``tcpdump -A`` prints it
(``*2..$4..AUTH..$12..X..``), and ``AUTH [user] X`` inside ``HELLO 3 AUTH user X SETNAME n``.
55: transcripts: a shell's or a REPL's prompt line whose command or expression names a credential,
the value printed alone on the line after it (``$ bw get password x``, ``jshell>
System.getenv("DB_PASS")``, ``irb> …[:secret_access_key]`` then ``=> "X"``), and Redis' numbered
replies (``1) "requirepass"``, ``2) "X"``).
56: a table drawn with box-drawing characters (``│``, ``┃``, ``║``, rulers of ``─``) is read as
its ASCII twin, and a header padded with runs of tabs (``influx auth list``) is split at each run,
not into empty cells.
57: a value alone on the line below a line that ends with its credential name (``Client
secret:``, ``API key:``, ``Password for the reporting DB:``, var_dump's ``["password"]=>`` then
``string(16) "…"``, Xdebug's ``'password' =>``, a minisign or signify ``… secret key`` comment, a
CI log's ``..=> '…'``).
58: a decoded value is read under its name after LDIF's ``NAME::`` (base64, RFC 2849) and after a
command substitution that pipes it into a decoder (``NAME=$(echo … | xxd -r -p)``, ``| base64
-d``).
59: a heredoc ends at its word followed by PHP's ``;`` (``EOT;``, ``EOT,``, ``EOT)``) or by the
quote and brace that close the JSON it is in: its closing line is no longer read as its value.
60: a value under a credential name is none when it is a reference to where the credential is (a
YAML tag: ``!Ref``, ``!ImportValue``, ``!secret``, ``!env_var``, ``!reference``; Concourse's
``((var))``, Symfony's ``%env(…)%``; an environment variable's name ending in a credential word,
``NEXUS_PASS``; a secret's path in its store, ``prod/db/master``; a method's call), a description
(a size, ``16 bytes``; SASL mechanisms, ``AUTH=PLAIN``; what keeps one, ``Password Store``; a
translation's label, ``Şifre``, ``Jeton``; a command with an option, a git alias), or ciphertext
in an envelope made for git (Pulumi's ``v1:…:…``, ejson's ``EJ[1:``, Jasypt's ``ENC(…)``, an
AWS KMS blob, a SealedSecret's ``Ag…``, Ansible Vault); a name ending in a message word
(``token_expired``, ``password_too_short``) is about the credential; 64 hex digits named public
are no private key.
61: a session cookie given in code (``cookies={"sessionid": "X"}``, ``cookies=dict(…_session="X")``,
``Cookie("sessionid", "X", …)``) after ``cookies=``, ``cookies:``, ``Cookie(`` or ``cookies.set(``
on its line; a Redis ACL rule's ``>X`` on a ``user NAME`` line or after ``ACL SETUSER NAME``; a
name word beginning with ``csrf`` or ``xsrf`` (``csrftoken``) is an anti-forgery token's.
62: a file named as a keyfile (``mongodb-keyfile``, ``keyfile.txt``, ``*.keyfile``) is a
credential's file for the printers: what ``cat`` prints of it is found literally; a literal that
``echo`` or ``printf`` writes into a credential's file (``> .vault_pass``, ``| tee …/api.token``)
is found literally too.
63: any command's arguments are read by what its words say (``_args``), known to the command table
or not: an option whose letters name a password (``-pw``, ``/pass``, ``--rootpw``), a user's
option joined to its password (``-U u%X``), an option's value whose last ``:`` field is random
(``-y hmac:name:X``), a verb of authentication among the first words (``authorize``,
``identify``, ``/secure set``) and the random words after it, licence-key groups and base32 seeds
after an option, a random literal piped or given as a here-string to a command that authenticates.
64: key material and one-time codes on lines of their own (``key-material``): an armored block
naming a seed, a secret, a licence or a key that is not public, a google-authenticator file,
codes under a heading naming recovery or backup codes, a hex key beside its cipher or a Kerberos
realm, spaced hex bytes after a key's label, a key as a list of byte values under a key's name;
printers: a subcommand that generates or exports a key, ``base64`` of a file, files named as key
material (``keyfile``, ``.erlang.cookie``, ``.google_authenticator``, ``*-recovery-codes.txt``)
and their lines of material past the listing limit, the generated fields of a credential or
account file's records (``user:X:10``, ``url user X``).
65: a credential name as the last subscript of a chain (``default['db']['password'] = …``,
``os.environ["TOKEN"] = …``); a name and its value in sibling fields (``label``/``type``/``name``
beside ``value``, a store's path as the name, ``"value": ["X"]``, ``"NAME": {"value": X}`` on one
line); a key/value table whose columns are named otherwise (``variable_name | variable_value``,
``path | value``, ``k | v``).
66: a directive line's statements (``A x; MqttPassword X; …``) are each read for a credential word
and its value, not only the first; a quoted string of words is split again when one of them names
a credential; a name after a query's ``key=`` (``?cmnd=WebPassword X``, once URL-decoded) is one.
67: a credential passed by position to a client's call (``_calls``), read by the call's structure:
a callee whose names say authentication or a client of a service; the password after a user,
after a host and a port, alone in an authenticating call when it looks random, or as the second
literal of a ``"%s:%s"`` format.
68: sentences (``_sentences``): a word shaped as a password or a token (a symbol of passwords
inside letters and digits; 16 or more random-looking letters and digits; words joined by dashes
and a number; after ``NOUN:``, both cases and digits) on the line of a credential noun of any of
seventy languages (``_nouns``: stems, every spelling), after it or just before it, whatever the
words between say; prose's ``:`` between digits (a time) is no sign after words.
69: a directive line whose first word names a password by its letters (``bindpw X``, ``rootpw
--plaintext X``) gives its first argument that is no option; a setting or option naming the
command that prints a password (``PassCmd``, ``passwordeval``, ``--password-command``) gives the
literal its ``echo`` or ``printf`` prints.
70: a value read from a line's words ends before the lone ``'`` that closes the string its word
began (``"curl -H 'Bearer X'"`` inside a JSON string): the quote is not part of the value.
71: a literal wrapped in code under a credential name (``Hash::make('X')``,
``unsafePlainText("X")``, ``ENV.fetch(…) { "X" }``, a template's ``default('X')``): the first quoted
string after the call's head that reads as a credential; an XML element named by its ``name`` or
``key`` attribute with other attributes after it (``<string name="api_key"
translatable="false">X``); a quote JSON-escaped before a value in the arguments reader's gate
(``cmd = \\"echo X\\"``, ``-b \\"<seed>\\"``) and a setting naming ``auth``, dotted, that prints
the password (``backend.auth.cmd``).
72: a token as a URL's whole userinfo (``nats://X@host``, ``https://X@pypi.fury.io/…``): a
random-looking user name of 16 bytes or more before the host is a credential (``url-password``);
hex is an id there (a Sentry DSN's public key).
73: a word shaped as a generated password standing apart in text, in any language (``_generated``:
12 to 64 bytes, both cases and digits, pieces of one or two letters, ``!``, ``^`` or ``~`` between
a letter or digit and two more): prose naming its credential in a word no noun table holds.
74: names read where code or a file spells them another way: an operator of code between a quoted
credential name and its value (``->``, ``:>``, ``=>`` after an Erlang binary) or a prefix on the
value's quote (``@"X"``, ``$``, ``L``, ``u8``, ``f``, ``<<``); the id half of an access key pair
(``secretId``, ``accessid``, ``APCA-API-KEY-ID``) when shaped as a key; a list under a plural
credential name (``APP_KEYS``, ``AUTH_TOKENS``) read item by item (``_values.list_item``); a
definition directive (``#define``, `` `define``, ``%global``) leading a ``NAME value`` line; a
sized hex literal of 64 bits or more under a key's name (``128'h…``).
75: the same shape as 73 in prose without the gate (``prose_words``): every word with a digit on a
text block's or a reasoning summary's line of the export, whatever symbol it holds or none, unless
its pieces between dashes are few (``ViT-B-16-SigLIP``), an identifier's words or a measure.
76: in prose a word of 16 letters and digits or more is read by its pieces too, unless it is base64
of printable text (the decoders' to read) or hex in either case (EIP-55); in a segment of 16 bytes
or more an identifier's words are capitalised pieces of three letters or more, a third of its
pieces.
77: credentials a URL carries outside its ``scheme://`` userinfo (``_urls``): a random-looking
path segment in a key's slot (``/api/push/<token>``, ``/hooks/<id>``, Infura's ``/v3/<id>``,
``hc-ping.com/<uuid>``), the password of ``scheme:user:password@host`` written without ``//``
(``sip:``, CVS's ``:pserver:``) and ``user:X@host`` with no scheme, a notification URL's tokens
(Apprise's ``pover://user@token``, ``discord://id/token``); a credential column's value in a
statement a log prints (``_statements``), a literal in the statement or the parameter bound to its
placeholder (``INSERT … (name, token) VALUES ($1, $2)`` and Ecto's ``["u", "X"]``).
78: a client's credential by option or position, whatever the client (``_args``, ``_argv``,
``_calls``): a short option's random-looking value (``vsql -w X``, ``winrs -p:X``; not a file's
name or an identifier's words), a dotted option's last segment (``--server.password``),
``/login:D\\u,X``, ``USER u USING X``, a token as curl's user before a placeholder password, every
command of a group piped into a client's standard input, a client's own authenticating command
fed to it, a random-looking literal printed twice into any command, sshfs's ``-o
password_stdin``, a literal after a constant naming a credential (``CURLOPT_USERPWD, "u:X"``).
79: a credential name's value written as literals joined in code (``_joined``): by an operator
(``+``, ``..``, ``.``, ``||``, ``&``, ``<>``, ``~``), side by side (``"ab" "cd"``, ``'ab'"cd"``)
or by a call (``CONCAT(…)``, ``strings.Join(…)``, ``"".join(…)``), read as one value, redacted
from its first piece to its last; VB's ``As String`` between a name and its ``=``.
80: a password by its place in a record (``_records``): after a plaintext scheme's marker
(``{PLAIN}X``, ``{CLEARTEXT}X``), after ipsec.secrets' type (``: EAP "X"``, ``XAUTH``, ``NTLM``, a
key file's quoted passphrase), a Wi-Fi QR payload's ``P:X;``, the records under a comment naming
their file (``# /etc/davfs2/secrets``) or their layout (``# host:login:password``), the column of
known credential files (``FILE_LAYOUTS``: exim's ``passwd.client``, ppp's secrets, davfs2's,
rsyncd's) whatever the value's shape; a record of ``/etc/passwd`` or ``/etc/shadow`` gives none.
81: codes (``_codes``): a PIN, a PUK, a card's security code, a one-time, MFA, verification,
recovery, reset or backup code under its name (``_names.code_name``: ``card_pin``, ``otp``,
``--token-code``, ``X-MFA-Code``, ``reset code``, ``Bestätigungscode``, ``código de
verificación``, ``验证码``; not ``spin``, ``zip code``, ``status_code``, ``otp_length``) in any
syntax or in prose (``PIN 4821``, ``your code is X``), its value three to sixteen digits (four
but for a card's), in groups or not, or short groups of letters and digits for a code that is no
PIN; not a run, one digit repeated or a quantity.
82: look-alikes read as credentials by their causes: a credential's name as an item of a map or a
list (``"Authorization" -> token, "Accept" -> …``, ``credential_chain, REGION 'eu'``) takes no
next item as its value (a call's next string argument still is its value); a subcommand named by
its verb (``get-secret-value``, ``describe-secret``) is no credential's name; what an option
naming a thing gives (``--secret-id MyDbSecret2``) is no setting's name; a paired ``-P``'s
``name=value`` (psql's ``pager=off``) is a setting; a Windows drive's path (``C:\\Users\\…``)
is no ``user:password``.
83: what a value is can say it is no secret, whichever pass found it; such hits are dropped last
(``_benign``; the rules of ``ALWAYS_KEPT`` excepted): a password's stored hash known by its whole
format (``_hashes``: crypt and bcrypt, apr1, argon2, Django's and werkzeug's, SCRAM, ``{SSHA}``,
qBittorrent's ``@ByteArray(…)``, Transmission's ``{`` + 40 hex, MySQL's ``*`` + 40 hex); a key
public by its vendor's prefix given to the vendor's code (``_public``: Mapbox ``pk.``, Stripe's
``pk_live_``, PostHog ``phc_``, Statsig ``client-``, Datadog ``pub``; the vendor named before it,
no secret, password or authorization named on its line, no server setting's upper-case name);
the next name of a list of names after a credential's (``_namelists``). Also: a name ending in a
site key is public; a label spelling its field's name, and an id with a path of words
(``LoadCredential=id:/path``), are no values; OAuth's ``state`` (where the text names OAuth's
flow) and a ``challenge`` are random by design; a quoted word after an upper-case keyword
(DuckDB's ``REGION 'eu-west-1'``) is that option's value; a quoted ``"<password>"`` with no end
tag is a placeholder; a line's start is 0 at a buffer's start (a noun on the first line).
84: a digest, a signature or a fingerprint labelled as such is public: an algorithm's whole name
where a credential's value stands (OpenVPN's ``auth SHA256``, ``password_encryption =
scram-sha-256``; ``_labelled``), a piece of a fingerprint's colon-separated hex bytes (keytool's
``SHA1: AB:CD:…``, ``ssh-keygen -l``'s ``MD5:…``), DKIM's and ARC's ``bh=`` and ``b=`` and a
Digest answer's ``response=``, ``cnonce=``, ``opaque=`` under their header (``_entropy``); a
Digest answer's ``username=`` is an auth-param's name, not the header's credential.
85: a path is no value: a path of words before a list of options (``credentials=/root/.smb,uid=
1000``) and a list of settings naming no credential (``--secret id=npmrc,src=…``, an LDAP DN) are
no value, whichever pass read them (``_paths.among_options``); a run holding ``/`` that ends at a
file's extension is a file's path where no name stands before it, or under a name when no piece
of it reads as a token; a URL's port and path after its host's colon is no name's value, its
segments read on their own (a random token, or hex as the last segment, is one; hex between
segments is an item's id); the word for a password as a URL's password (``user:password@``,
``:changeme@``) is a placeholder; an IBAN (its check digits hold) and a value under an ``iban``
or ``bic`` name are an account's identifier; a table's header read in a JSON string starts after
its member's name.
86: values that say by their own form what they are (``_labelled.known_form``), whichever pass
found them: a version with pre-release and build parts of numbers, words or a short commit's hex;
Django's unusable-password marker (``!`` and 40 letters and digits); a credential's name of
lower-case words and numbers (``db-password``, ``6001-auth/6001``); a literal closing its object
(``true }]``); SIP's ``branch=z9hG4bK…``; hex of the shape of the document's ids (an ``"id"`` of that length nearby: Node-RED's ``"z"``
and ``"wires"``) is an id; a two-item list under a name saying names (``fields = ("authCode",
"state")``) is a list of names; a query's parameter ends at its ``&``, a quoted word at its
closing quote (``"X".``).
87: a client's credential by its position: a console variable set on a command line (``+name
value``, ``+set name value``) under a credential's name or shaped as a token (``+rcon_password
X``, ``+sv_setsteamaccount X``); the words after an option's password up to the next option
(steamcmd's Steam Guard code, ``dscl . -passwd /Users/u OLD NEW``); SNMPv3's ``priv`` names a
password (``priv aes 128 X``); past the first level of escapes, a window's word holding a
backslash that escapes nothing (a UNC path ``\\\\nas01\\share``) is not decoded again, so
``\\n`` in it is no line break.
88: ``Basic`` and the base64 of ``user:password`` is an Authorization header's value wherever it
stands (the rule ``authorization-header``): given as an argument, a map's item or a directive's
word (``proxy_set_header Authorization "Basic X"``, ``Map("Authorization" -> "Basic X")``,
``.header("Authorization", "Basic X")``, Envoy's ``value:``, a Traefik label, prose); what
follows ``Basic`` must decode to a printable ``user:password``.
89: an ``INSERT``'s column list and its first row of values over several lines (``_statements``:
``VALUES`` and the lists' items on lines of their own, a file's rows, a diff's, grep's, raw or
JSON-escaped), ``N'X'`` and ``E'X'`` strings; a credential table's ``key`` or ``value`` column
gives a value only when it reads as a secret (``'ci-readonly'``, ``'login.title'`` are names).
90: a setting named by one option and given by another (``Client.named``): ``reg add … /v
DefaultPassword /t REG_SZ /d X``, PowerShell's ``Set-ItemProperty``/``New-ItemProperty -Name
SmtpPassword -Value X``: under a credential's name the value is one, whatever its shape.
91: a code's digits in groups of two as well as three to six after the first (a HomeKit setup
code, ``"pin": "031-45-154"``); a date (``2024-01-15``) is no code.
92: a name saying its value holds data (``blob``, ``data``, ``content``) is no benign name for
entropy in context when a word before says the data is a secret's (``LICENSE_BLOB``,
``activation_blob``, ``SIGNING_KEY_CONTENT``: a licence, an activation, a signing or private
key, a seed).
93: past the first level of escapes, the quoted string ``printf`` or ``echo -e`` prints, its
backslashes single (the shell's ``\\n``), is not decoded again: ``printf 'X\\nX\\n' | passwd``,
``echo -e "X\\nX" | smbpasswd -s`` stay one command line; every line of a ``printf`` format with
no conversion is what it prints into the next command (a password and its confirmation).
94: a wallet's seed phrase by what it is (``seed-phrase``, ``_seeds``): around a word standing
near one (``mnemonic``, ``seed``, ``recovery``, ``phrase``, ``wallet``, ``backup``, ``restore``,
``words``, a wallet's name, ``bip39``), 12, 15, 18, 21 or 24 words of the BIP-39 English wordlist
(shipped as package data) that pass BIP-39's checksum or Electrum's seed-version check, at least
half of them distinct, however separated (spaces, commas, one a line, numbered, a list's quoted
items); and right after a word naming a seed, 12 to 24 lower-case words, a multiple of three, a
third or more of them on the wordlist.
95: key material named as a key: an armored block whose label names a key of any kind, words
after it or not (``Static key V1``, ``MASTER KEY BLOCK``; not public, private, a certificate or a
signature), redacts its lines; hex of a SHA-2 digest's length under a name whose last word is key
(``name_is_key``: ``validationKey``; not ``cacheKey``, ``checksum/key``) is a key's
(``_entropy``), SHA-1's 40 staying a digest's (git's ids)."""

# Rule ids with what they find (the receipt and the audit report name these ids).
RULES: Final[dict[str, str]] = {
    "openai-api-key": "OpenAI API key, or another vendor's in OpenAI's form (sk-...: DeepSeek, Moonshot, Langfuse ...)",
    "openrouter-api-key": "OpenRouter API key (sk-or-v1-...)",
    "anthropic-api-key": "Anthropic API key (sk-ant-...)",
    "github-token": "GitHub token (ghp_, gho_, ghu_, ghs_, ghr_, github_pat_)",
    "aws-access-key-id": "AWS access key id (AKIA..., ASIA...)",
    "google-api-key": "Google API key (AIza...)",
    "slack-token": "Slack token (xoxb-, xoxp-, xoxe-, xoxe.xoxp-, xapp-, ...)",
    "stripe-api-key": "Stripe secret or restricted key (sk_live_, rk_test_, ...)",
    "gitlab-token": "GitLab personal access token (glpat-)",
    "huggingface-token": "Hugging Face token (hf_)",
    "npm-token": "npm token (npm_)",
    "pypi-token": "PyPI upload token (pypi-AgE...)",
    "jwt": "JSON Web Token",
    "private-key": "private key: PEM and OpenSSH blocks, PuTTY .ppk (Private-Lines), JWK/JWKS private members, "
    "PKCS#12/PKCS#8/PKCS#1/SEC1 DER in base64, 64 hex digits under a key-ish name",
    "authorization-header": "Authorization header value; Basic and the base64 of user:password, wherever it stands",
    "bearer-token": "Bearer token",
    "cookie": "Cookie or Set-Cookie header value, or a session cookie given in code",
    "url-password": "password in a URL (scheme://user:password@host, the user may be empty; the password runs to the "
    "last @ before the host; scheme:user:password@host without //: sip:, xmpp:, CVS's :pserver:; user:X@host.name "
    "with no scheme when X reads as generated), or in Go's MySQL "
    "DSN (user:password@tcp(host)/db); a random-looking token as a URL's path segment in a key's slot (after "
    "/t/, /token/, /apikey/, /push/, /ping/, /hooks/, /inputs/, /integration/; after /v2/ or /v3/ ending the path; "
    "first on a host named for pings or a node's calls: hc-ping.com/<uuid>, rpc.ankr.com/eth/<key>); a "
    "notification URL's tokens (Apprise: pover://user@token, discord://id/token)",
    "webhook-url": "secret webhook URL (Slack, Discord, Microsoft Teams, Zapier, IFTTT, Make)",
    "signed-url-query": "signed-URL or credential query value (X-Amz-Signature, sig, token, key, ...)",
    "credential-assignment": "credential under a credential name (pass, pwd, secret, token, credential, auth, cookie, "
    "qualified key; =, :, =>, XML element or attribute), a flag named so (--password, --client-secret, "
    "-storepass), a client's password flag (mysql -p, docker login -p, sqlcmd -P, ldapsearch -w, redis-cli -a, "
    "sshpass -p, http -a, smbclient -U user%pass...), a password by position (htpasswd -b, net user, "
    "ConvertTo-SecureString), echo into --password-stdin, SQL IDENTIFIED BY/PASSWORD, a password named then "
    'given (signingPassword "x", the password is x), .netrc and .pgpass lines, auth tuples, a credential column\'s '
    "value in a logged statement (INSERT … VALUES, UPDATE … SET, and the parameters bound to its placeholders)",
    "rho-audit-canary": "one of upstream Rho's secret audit canaries",
    "google-oauth-token": "Google OAuth access token (ya29.)",
    "aws-secret-access-key": "AWS secret access key next to its access key id, labelled or not",
    "aws-bedrock-api-key": "Amazon Bedrock API key (ABSK..., bedrock-api-key-...)",
    "curl-user-password": "password of curl -u/--user user:password",
    "azure-ad-client-secret": "Microsoft Entra (Azure AD) client secret (...8Q~...)",
    "telegram-bot-token": "Telegram bot token (123456:AA...)",
    "digitalocean-token": "DigitalOcean token (dop_v1_, doo_v1_, dor_v1_)",
    "shopify-token": "Shopify token (shpat_, shpca_, shppa_, shpss_)",
    "sendgrid-api-key": "SendGrid API key (SG.)",
    "vault-token": "HashiCorp Vault token (hvs., hvb.)",
    "age-secret-key": "age secret key (AGE-SECRET-KEY-1...)",
    "onepassword-token": "1Password secret key or service-account token (A3-, ops_)",
    "airtable-token": "Airtable personal access token (pat....)",
    "alibaba-access-key-id": "Alibaba Cloud access key id (LTAI...)",
    "artifactory-token": "JFrog Artifactory API key or reference token (AKCp, cmVmd)",
    "atlassian-api-token": "Atlassian API token (ATATT3..., ATCTT3xFfG..., or 24 characters under Jira's, Confluence's or Atlassian's name)",
    "clojars-token": "Clojars deploy token (CLOJARS_)",
    "cloudflare-origin-ca-key": "Cloudflare origin CA key (v1.0-...)",
    "databricks-token": "Databricks token (dapi...)",
    "doppler-token": "Doppler token (dp.pt., dp.st., ...)",
    "dropbox-token": "Dropbox short-lived token (sl.)",
    "duffel-token": "Duffel token (duffel_live_, duffel_test_)",
    "dynatrace-token": "Dynatrace token (dt0c01.)",
    "easypost-token": "EasyPost key (EZAK, EZTK)",
    "facebook-token": "Facebook / Meta access token (EAAM, EAAC)",
    "flutterwave-key": "Flutterwave secret or encryption key (FLWSECK)",
    "flyio-token": "Fly.io token (fo1_, fm1_, fm2_)",
    "frameio-token": "Frame.io token (fio-u-)",
    "grafana-token": "Grafana API key, cloud or service-account token (eyJrIjoi, glc_, glsa_)",
    "harness-token": "Harness personal or service-account token (pat., sat.)",
    "heroku-api-key": "Heroku API key (HRKU-AA..., or a UUID under Heroku's name)",
    "infracost-token": "Infracost token (ico-)",
    "intra42-secret": "42 intra client secret (s-s4t2ud-, s-s4t2af-)",
    "linear-api-key": "Linear API key (lin_api_)",
    "mailchimp-api-key": "Mailchimp API key (32 hex digits, -us and a datacenter)",
    "mailgun-key": "Mailgun private API key (key-...)",
    "mapbox-token": "Mapbox secret token (sk.eyJ...)",
    "google-client-secret": "Google OAuth client secret (GOCSPX-)",
    "buildkite-token": "Buildkite user access token (bkua_)",
    "newrelic-key": "New Relic key (NRAK-, NRII-, NRJS-)",
    "notion-token": "Notion integration token (ntn_)",
    "octopus-deploy-key": "Octopus Deploy API key (API-...)",
    "openshift-token": "OpenShift user token (sha256~...)",
    "perplexity-api-key": "Perplexity API key (pplx-)",
    "planetscale-token": "PlanetScale token or password (pscale_tkn_, pscale_oauth_, pscale_pw_)",
    "postman-api-key": "Postman API key (PMAK-)",
    "prefect-api-key": "Prefect API key (pnu_)",
    "pulumi-token": "Pulumi access token (pul-)",
    "readme-api-key": "ReadMe API key (rdme_)",
    "rubygems-token": "RubyGems API key (rubygems_)",
    "scalingo-token": "Scalingo token (tk-us-)",
    "sendinblue-api-key": "Brevo (Sendinblue) API key (xkeysib-)",
    "sentry-token": "Sentry organisation or user token (sntrys_, sntryu_)",
    "settlemint-token": "SettleMint token (sm_aat_, sm_pat_, sm_sat_)",
    "shippo-token": "Shippo token (shippo_live_, shippo_test_)",
    "sourcegraph-token": "Sourcegraph access token (sgp_)",
    "square-token": "Square access token or OAuth secret (EAAA, sq0atp-, sq0csp-)",
    "twilio-api-key": "Twilio API key (SK + 32 hex)",
    "typeform-token": "Typeform token (tfp_)",
    "yandex-token": "Yandex Cloud token or key (t1., AQVN, YC)",
    "docker-hub-token": "Docker Hub personal access token (dckr_pat_)",
    "adobe-client-secret": "Adobe client secret (p8e-)",
    "facebook-app-token": "Facebook app access token (app id | app secret)",
    "kubernetes-secret": "values under data or stringData of a Kubernetes Secret manifest",
    "discord-bot-token": "Discord bot token (three dotted base64url parts)",
    "azure-storage-key": "Azure storage account key (AccountKey=...)",
    "groq-api-key": "Groq API key (gsk_)",
    "xai-api-key": "xAI API key (xai-)",
    "tavily-api-key": "Tavily API key (tvly-, tvly-dev-)",
    "pinecone-api-key": "Pinecone API key (pcsk_)",
    "langsmith-api-key": "LangSmith personal token or service key (lsv2_pt_, lsv2_sk_)",
    "replicate-api-token": "Replicate API token (r8_)",
    "fireworks-api-key": "Fireworks AI API key (fw_)",
    "together-api-key": "Together AI API key (tgp_v1_)",
    "elevenlabs-api-key": "ElevenLabs API key (sk_ and 48 hex digits, or 32 under ElevenLabs' name)",
    "voyage-api-key": "Voyage AI API key (pa-)",
    "firecrawl-api-key": "Firecrawl API key (fc- and 32 hex digits)",
    "cerebras-api-key": "Cerebras API key (csk-)",
    "nvidia-api-key": "NVIDIA API key (nvapi-)",
    "jina-api-key": "Jina AI API key (jina_)",
    "e2b-api-key": "E2B API key (e2b_)",
    "resend-api-key": "Resend API key (re_)",
    "supabase-token": "Supabase access token or secret key (sbp_, sb_secret_)",
    "neon-api-key": "Neon API key (napi_)",
    "tailscale-key": "Tailscale auth or API key (tskey-)",
    "posthog-personal-key": "PostHog personal API key (phx_)",
    "deno-deploy-token": "Deno Deploy token (ddp_, ddw_)",
    "figma-token": "Figma personal access token (figd_, figp_)",
    "netlify-token": "Netlify personal access token (nfp_)",
    "rootly-token": "Rootly API token (rootly_)",
    "ramp-secret": "Ramp client secret (ramp_sec_)",
    "bitbucket-app-password": "Bitbucket app password (ATBB)",
    "defined-networking-token": "Defined Networking API token (dnkey-)",
    "lob-api-key": "Lob secret API key (live_, test_ and 35 hex digits)",
    "gocardless-api-token": "GoCardless access token (live_)",
    "plaid-access-token": "Plaid access token (access-sandbox-, access-production-...)",
    "twitter-bearer-token": "X (Twitter) app bearer token (AAAA...)",
    "sonarqube-token": "SonarQube token (squ_, sqp_, sqa_)",
    "clickhouse-secret-key": "ClickHouse Cloud API secret key (4b1d...)",
    "authress-access-key": "Authress service client access key (sc_, ext_, scauth_, authress_ ... .acc_)",
    "hashicorp-tf-api-token": "Terraform Cloud / HCP API token (... .atlasv1. ...)",
    "maxmind-license-key": "MaxMind license key (..._mmk)",
    "prefixed-secret": "a random token after a prefix that names a secret, from any vendor (gsk_, pcsk_, lsv2_sk_, "
    "nvapi-, secret_, key-: a word ending in sk, secret, key, token, tkn, pat, api or priv, then 20 or more "
    "random characters of both cases and digits)",
    "high-entropy-value": "random-looking value where a credential stands (assigned, a header, a quoted argument)",
    "known-credential": "a credential rho-desk holds in keyring",
    "printed-secret": "what a command that prints a secret printed (op read, gcloud secrets versions access, terraform "
    "output -raw, wg genkey, cat of a credential-named file), wherever it appears",
    "seed-phrase": "a wallet's seed phrase: 12 to 24 words of the BIP-39 wordlist that pass BIP-39's or Electrum's "
    "check near a word saying seed, wallet, backup or words, or 12 to 24 words right after a name saying seed, "
    "mnemonic or wallet",
    "key-material": "key material or one-time codes on lines of their own: an armored block naming a seed, secret, "
    "licence or key that is not public, a google-authenticator file, codes under a heading naming recovery or backup "
    "codes, a hex key beside its cipher, a key as a list of byte values under a key's name",
}


RULES.update(
    {
        rule: f"a key known by the name beside it ({', '.join(w.decode() for w in words)}, then a value of its shape)"
        for rule, words, _ in VENDOR_NAMED
        if rule not in RULES
    }
)


CATALOGUE_BEGIN: Final = "<!-- rule catalogue: generated by rule_catalogue(), do not edit -->"
CATALOGUE_END: Final = "<!-- end of rule catalogue -->"


def rule_catalogue() -> str:
    """The Markdown table of ``RULES`` that docs/security.md carries between ``CATALOGUE_BEGIN``
    and ``CATALOGUE_END`` (a test keeps the two equal)."""
    rows = [CATALOGUE_BEGIN, "", "| rule id | finds |", "| --- | --- |"]
    rows += [
        f"| `{rule}` | {what.replace('|', '&#124;')} |" for rule, what in sorted(RULES.items())
    ]
    return "\n".join([*rows, "", CATALOGUE_END])


@dataclass(frozen=True, slots=True, repr=False)
class Hit:
    """One secret found: where (byte offsets of the span to replace) and which rule.

    ``value`` is the secret itself (decoded, canonical), kept only to compute a fingerprint.
    It never appears in ``repr``.
    """

    rule: str
    start: int
    end: int
    value: bytes = field(compare=False)
    encoding: str = "plain"
    """How the secret was written: ``plain``, ``case``, ``json-escape``, ``html-escape``,
    ``percent``, ``unicode-escape`` or ``base64``."""

    def __repr__(self) -> str:
        return f"Hit(rule={self.rule!r}, start={self.start}, end={self.end}, encoding={self.encoding!r})"


def fingerprint(key: bytes, value: bytes | str) -> str:
    """``fp:`` + the first 16 hex digits of HMAC-SHA256(key, value).

    The same secret gives the same fingerprint under the same key (so exports can be compared)
    without revealing it: a fingerprint cannot be brute-forced without the key in keyring.
    """
    data = value.encode("utf-8") if isinstance(value, str) else value
    return "fp:" + hmac.new(key, data, hashlib.sha256).hexdigest()[:16]


def merge_hits(hits: Iterable[Hit]) -> list[Hit]:
    """Hits sorted by position with overlaps merged (the first hit of a group names it)."""
    ordered = sorted(hits, key=lambda h: (h.start, -h.end))
    merged: list[Hit] = []
    for hit in ordered:
        if merged and hit.start < merged[-1].end:
            last = merged[-1]
            if hit.end > last.end:
                merged[-1] = Hit(last.rule, last.start, hit.end, last.value, last.encoding)
            continue
        merged.append(hit)
    return merged


# --- placeholders -------------------------------------------------------------------------------

ALWAYS_KEPT: Final = frozenset(
    {
        "known-credential",
        "printed-secret",
        "private-key",
        "kubernetes-secret",
        "rho-audit-canary",
        "age-secret-key",
        "key-material",
        "seed-phrase",
    }
)
"""Rules whose hits are kept whatever their value looks like (a placeholder's run, a stored
hash's format): what rho-desk holds, what a command printed, key blocks."""
PLACEHOLDER_RUN: Final = 6
"""A value this many times the same character in a row, that character half of it or more, is a
placeholder (``ghp_xxxx…``, ``AKIAXXXX…``, ``pnu_XXXX…``)."""


_SAME_RUN: Final = re.compile(rb"(.)\1{%d}" % (PLACEHOLDER_RUN - 1), re.DOTALL)
"""``PLACEHOLDER_RUN`` times one byte in a row (searched in C: a value can be lines long)."""


_PLACEHOLDER_PASSWORD: Final = re.compile(
    rb"(?i:(?:your|my|the|db|some|example|dummy|fake|sample)?[-_]?"
    rb"(?:pass(?:word|wd|phrase)?|pwd|secret|changeme|change[-_]me|redacted)(?:[-_]?here)?)"
)


def placeholder_password(value: bytes) -> bool:
    """A URL's password that is the word for one (``user:password@``, ``:yourpassword@``,
    ``:your-password@``, ``:changeme@``, ``:PASSWORD@``): an example's placeholder. A password
    that only begins so (``Pa55word…``, ``passw0rd-7Tq9``) is one."""
    return _PLACEHOLDER_PASSWORD.fullmatch(value) is not None


def placeholder(hit: Hit) -> bool:
    """A hit whose value is a placeholder, not a credential: mostly one character repeated
    (``ghp_xxxx…``, ``AKIAXXXX…``). Anything that merely looks made up (``abcdefgh``, AWS's
    ``…EXAMPLE`` keys) is still redacted: a test key in a session is redacted like a real one."""
    if hit.rule in ALWAYS_KEPT or len(hit.value) < 8:
        return False
    value = hit.value
    return _SAME_RUN.search(value) is not None and max(map(value.count, set(value))) * 2 >= len(
        value
    )


def known_handler(
    raw: bytes, encoding: str, rule: str
) -> Callable[[bytes, re.Match[bytes]], Hit | None]:
    """The handler of a credential rho-desk holds, found literally (``raw``, as ``encoding``)."""

    def handle(data: bytes, m: re.Match[bytes]) -> Hit | None:
        return Hit(rule, m.start(), m.end(), raw, encoding)

    return handle
