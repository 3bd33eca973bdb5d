"""The held-out batches 3 to 14 (issue 31): everyday secret forms and benign look-alikes, each
batch written without looking at the scanner or its rules' tests and measured blind on main,
then fixed by cause. ``heldout_batch_N.json`` holds batch N's forms as the batch wrote them
(``batch: extra``: the further forms of a fixed cause, written before the fix was checked
against them). The same checks run over every batch; what differs is data (``BATCHES``):

- batch 3: 507 secret forms in 12 causes and 69 look-alikes, blind on ``d01df15`` (62 forms
  leaked, 9 look-alikes damaged); 40 further forms and 33 look-alikes, 8 of them from the
  project's own docs and code. Planted in a ``bash`` call's output or command, a ``read_file``
  result as numbered rows, a diff, hashline or grep rows, ``apply_patch`` input, the ``write``
  tool's content, an interrupted call's raw arguments, a failed result, a user's text.
- batch 4: 107 forms and 26 look-alikes, blind on ``dbb4654`` (13 leaked, 11 of them with
  ``findings: 0``; 4 look-alikes damaged): tools' configuration files, shell history,
  environment dumps, logs and stack traces, HTTP headers, code literals in eleven languages,
  SQL, connection strings, tables, comments, reasoning prose, encodings; 42 further forms and 31
  look-alikes for ten causes (padding around a name's operator, a credential pair among other
  pairs, a .pgpass line after an escaped break, a variable's reference as an Authorization
  value, a ``<placeholder>`` read as an XML element, Go's MySQL DSN, a SQL column's type read
  as its value, HTML character references, ``PW`` ending a name, a call named ``auth``).
- batch 5: 151 forms and 27 look-alikes, blind on ``58da74e`` (21 leaked, 18 with ``findings:
  0``; 4 look-alikes damaged): cloud CLIs' output, Kubernetes/Helm/Compose, CI logs, IDE and
  package-manager configuration, HAR files and cookies, crash dumps, mail, mobile projects,
  database clients, notebooks, log formats, encodings, split values, tables, prose in English
  and nine other languages, Windows and network configuration; 55 further forms and 44
  look-alikes for thirteen causes; 7 further forms and 3 look-alikes for a session cookie given
  in code (httpx, aiohttp, ``cookies=dict(…)``, ``fetch``'s headers, a cookie jar, selenium,
  ``Set-Cookie``).
- batch 6: 190 forms and 31 look-alikes, blind on ``64f74c5`` (44 leaked, 24 with ``findings:
  0``; 7 look-alikes damaged): configuration formats (HOCON, EDN, Nix, Jsonnet, CUE, Starlark,
  PowerShell, ``.reg``, LDIF, River, Unreal and Godot files, XML variants), cloud and
  secret-manager CLIs, database tools, CI service messages, package managers and registries,
  mobile and game-engine tooling, data tools, observability agents, VPN/SSH/GPG/Wi-Fi, browser
  devtools copies, dumps and environment listings, a session's title, prose in twelve more
  languages; further forms (7 and 5 look-alikes) for the cause fixed since: a credential noun of a
  language prose did not know, inflected, or with no link word it knows; further forms (6 and 4
  look-alikes) for `pass` glued after a service's name (`smtppass`); further forms (5 and 4
  look-alikes) for a configuration line indented by a tab, JSON-escaped in the export; further
  forms (5 and 4 look-alikes) for an Authorization header's scheme the rule did not know;
  14 further look-alikes and 12 secrets beside them for three causes of the damaged look-alikes
  (a key named as public, a digest labelled by its algorithm, a handshake nonce); 6 further
  look-alikes and 6 secrets beside them for the word `pass` after a kind of pass
  (`render_pass`, `shadowPass`); 5 further look-alikes and 4 secrets beside them for an
  Authorization value with no scheme (`Authorization: required for every endpoint`); 6 further
  forms and 5 look-alikes for an INI section whose name holds `/`, `:`, `@` or a URL
  (`[domain/acme]`, `[program:worker]`); 6 further forms and 5 look-alikes for a tab before a
  name's operator, JSON-escaped (`Password\\t= X`); further forms
  (17 and 11 look-alikes) for a client's password as the n-th word after its option, by
  position after a subcommand, or by an option of one subcommand only (``steamcmd +login user
  X``, ``mkstore -createCredential db user X``, ``wandb login X``, ``pscp -pw X``, ``security
  add-generic-password -w X``); further forms (11 and 8 look-alikes) for a password read from
  standard input or given by a substitution (``--passwd-on-stdin``, ``-passfile /dev/stdin``,
  ``echo X | wg pubkey``, ``pass insert``, ``private-key <(echo X)``, ``password=-``); further
  forms (7 and 11 look-alikes) for a client whose name is a hex byte (``ab -C``, ``-A``, ``-P``)
  and Redis' wire protocol printed by tcpdump or MONITOR (``*2..$4..AUTH..``, ``"HELLO" "3"
  "AUTH" "u" "X" "SETNAME" …``);
  5 further forms and 4 look-alikes for a key
  that begins with a digit (nmcli's `802-1x.password:`); 4 further forms and 4 look-alikes for
  a key's content named after the word key (`KeyMaterial`, `key_content`); 8 further look-alikes
  and 4 secrets beside them for an id known by its form (``ObjectId('…')``, a Message-ID's
  ``<…@host>``, Firebase's app id, a GPG key's long id), and 7 and 3 for a digest, a file's
  header or text known by its form (``checksum/secrets``, ``|1|salt|hash``, base64 of UTF-8
  words, a file's magic number in hex; batches 5's and 6's damaged look-alikes); 4 further forms
  and 3 look-alikes for a Redis ACL rule's ``>X`` (``users.acl``, ``redis.conf``'s ``user``,
  ``ACL SETUSER`` in ``redis-cli``'s arguments); 3 further forms and 3 look-alikes for a key
  printed from a file named as a keyfile (``cat …/mongodb-keyfile``, ``keyfile.txt``).
- batch 7: 272 forms and 41 look-alikes, blind on ``28ac7bf`` (59 leaked, 13 with ``findings:
  0``; 8 look-alikes damaged): SDK constructors and calls taking a credential by position in
  twelve languages, ORMs and connection builders, database URLs of other drivers, IaC (Pulumi,
  Bicep, CloudFormation, CDK, Ansible, Chef, Puppet, Salt, Packer, Vagrant, Nomad), CI systems
  (Buildkite, Drone, Woodpecker, Bitbucket, Jenkins XML, Tekton, GoCD, Concourse, Azure DevOps),
  Kubernetes and Helm output, password managers' CLIs, email/SMS/payment SDKs, mobile and desktop
  settings, REPL transcripts and shell histories, frameworks printing their settings, HTTP and
  protocol dumps, browser storage, prose in eighteen more languages, value shapes; also planted
  in the session's metadata (``cwd``, ``last_command``); further forms (16 and 9 look-alikes)
  for the cause fixed since: a transcript's prompt line naming a credential, the value printed
  on the line after it (REPLs, shells, Redis' numbered replies); further forms (38 and 22 look-alikes,
  ``x-pr-``) for prose naming a credential in a language or a phrasing the prose reader did not
  know (31 languages no batch had, English with the value before the noun), and look-alikes with
  versions, ticket ids, hashes, paths, error codes, identifiers, dates and policies beside a noun; further look-alikes and the
  secrets beside them for the causes of the damaged look-alikes: a value that is a reference to
  where the credential is (8 and 5: ``!secret``, ``((var))``, ``%env(…)%``, ``CI_JOB_TOKEN``), a
  value that describes it (9 and 6: ``942 bytes``, ``AUTH=PLAIN LOGIN``, a translation's label,
  ``token_invalid``, a cargo alias), ciphertext in an envelope made for git (7 and 4: ejson,
  Jasypt, a KMS blob, ``!vault``); 4 further forms and 3 look-alikes for a literal written by
  ``echo`` or ``printf`` into a credential-named file (``> ~/.config/rclone/.password``, ``|
  sudo tee /etc/app/api.token``); further forms (6 and 4
  look-alikes) for a credential name as the last subscript of a chain, assigned
  (``$cfg['Servers'][$i]['password'] =``, ``smtp_settings[:password] =``); further forms (6 and
  4 look-alikes) for a name/value pair split across sibling fields (``label``/``value``, SSM's
  ``Name: /prod/…/password``, ``"value": ["X"]``, ``"NAME": {"value": X}`` on one line); further
  forms (6 and 4 look-alikes) for a key/value table whose columns are named otherwise
  (``variable_name | variable_value``, ``option_name``, ``var``, ``path | value``); further
  forms (24 and 18 look-alikes) for a credential passed by position to a client's call, in
  languages and SDKs the batch does not hold (Go, PHP, Erlang, Dart, C, C++, R, Perl, Rust, C#,
  Elixir; SMB, AMQP, MQTT, Redis, LDAP, SMTP, FTP, payment and email SDKs: ``ftp_login($c, 'u',
  'X')``, ``NewDialer(host, 587, "u", "X")``, ``SMBConnection("u", "X", …)``, ``l.Bind(dn,
  "X")``).
- batch 8: 317 forms and 42 look-alikes, blind on ``7008c0f`` (77 leaked, 53 with ``findings:
  0``; 5 look-alikes damaged): home automation (Home Assistant, ESPHome, zigbee2mqtt, Node-RED,
  Tasmota, openHAB, Frigate), media servers (Plex, Sonarr/Radarr, Jellyfin, SABnzbd, Deluge),
  backup tools (restic, borg, duplicity, kopia, rclone, b2), mail clients (aerc, mbsync,
  offlineimap, msmtp, Himalaya, Gnus, neomutt), chat bots (Discord, Telegram, Matrix, Slack, IRC,
  Twitch), data tools (dbt, Airflow, Spark, Jupyter, Superset), message queues (NATS creds,
  ActiveMQ, Pulsar, Redpanda, ZeroMQ CURVE), OAuth flows, JWE/PASETO/macaroons in logs, webhook
  signing secrets, licence keys, TOTP seeds, VPNs (wg dumps, tls-crypt-v2, Tailscale, Nebula,
  IOS, RouterOS, pfSense), embedded sketches, HPC (Slurm, Globus, HTCondor, iRODS), stack traces
  printing values, fixtures and migrations, build files, installers' answers (preseed, kickstart,
  debconf), git helpers, proxies, DNS (TSIG, DNSSEC), LDAP/Kerberos, database dumps, code in
  twenty-one more languages, prose in English and twenty languages, value shapes; further forms
  (37 and 20 look-alikes) for the cause fixed since: a command's argument by position or an
  option the command table does not know (``kadmin -w``, ``dsadd -pwd``, ``winexe -U u%X``, ``bw
  unlock X``, ``/inpkey:<key>``, ``kinit <<< X``, ``/oper u X``), read by what any command's
  words say (``_args``); further forms (5 and 4 look-alikes) for a literal wrapped in code under a
  credential name (``Secret.fromString('X')``, ``ENV.fetch('K') { 'X' }``, ``[]byte("X")``, a
  template's ``default('X', true)``), further forms (4 and 3 look-alikes) for an XML element named
  by an attribute with others after it (``<entry key="smtp.password" type="string">``), further
  forms (6 and 2 look-alikes) for a quote JSON-escaped before a value in the arguments reader's
  gate (``outgoing-cred-cmd = "echo X"``, ``oathtool -b "<seed>"``); further forms (4 and 2
  look-alikes) for a token as a URL's whole userinfo (``https://<token>@pypi.fury.io/…``,
  ``amqps://<token>@host``); further look-alikes and the secrets beside them for the
  causes of its damaged look-alikes: 3 and 3 for a label spelling its field's name (``"Client
  secret"`` under ``oauth.clientSecret``), 3 and 3 for OAuth values sent in the clear (WebAuthn's
  ``challenge``, ``state=``, a PKCE challenge; the verifier and the code are secrets), 3 and 2 for
  the file that holds a credential (``LoadCredential=id:/path``; ``SetCredential=id:X`` is one);
  then 6 secrets shaped as those look-alikes, written to try the exemptions as an attacker would
  (a passphrase of words, ``SetCredential=id:/X/Y``, ``user:/X/Y`` as a password, ``state=``
  holding a token in a download link, ``APP_STATE``, a challenge's response).
- batch 9: 309 forms and 44 look-alikes, blind on ``0f9d58e`` (52 leaked, 42 with ``findings:
  0``; 10 look-alikes damaged): package managers' and cloud CLIs' configuration and auth files
  (conda, Pipfile, uv, paket, vcpkg, cabal, pub, Julia, jfrog, codeartifact, OpenStack, Akamai,
  OVH, Tencent, wrangler, cloudflared, Vercel, Netlify, Firebase, Supabase, Fly, ngrok, frp), CI
  (act, Semaphore, Bitrise, Dagger, Atlantis, Argo CD, Flux, Harness, TeamCity), IaC variants
  (Terragrunt, Dhall, Pkl, KCL, Nickel, CDKTF, Talos, Kamal, Dokku, quadlets, Group Policy
  Preferences), observability agents, IDE, editor and AI-tool settings (MCP servers, Continue,
  aider, Neovim, Emacs, devcontainers, mise, direnv), notebooks, HTTP clients in fifteen
  languages, URLs of other schemes (RTSP, RTMP stream keys, Apprise, SIP, CVS, VNC, push
  monitors), SDK constructors and vendor prefixes, framework, ORM and client debug logs (bound
  parameters, ``http2debug``, ``--log-http``), REPL and shell histories, stack traces printing
  values, test fixtures, SQL (secrets, replication, links, key arguments of crypto functions),
  database and system clients, code in more languages (builders, designated initializers, HDL
  key literals), encodings, mobile, game and embedded tooling, prose in twenty more languages
  and in transliteration, chat and issue formats; further forms (15 and 12 look-alikes, ``x-nl-``,
  ``x-tr-``, ``x-ok-``) for prose naming a credential in a language or a transliteration no
  table holds (Breton, Faroese, Kinyarwanda, Shona, Malagasy, Georgian, Occitan, Corsican, Toki
  Pona, romanized Korean and Thai, Vietnamese without diacritics, Greeklish, transliterated
  Armenian, no noun at all), and look-alikes in prose (model names, versions and issue refs,
  hashes in a commit message, CSS colors, identifiers with digits, file names, cloud sizes and
  target triples, UUIDs and instance ids, timestamps, package pins); further forms (15 and 11
  look-alikes, ``x-pw-``, ``x-ok-pr-``) for the same cause once the shape was read in prose
  without the gate's symbols (Amharic, Sinhala, Lao glued to its script, Mongolian, Persian in
  Latin letters, transliterated Ukrainian, a value alone on its line, Turkish reasoning, a value
  in parentheses, Quechua, Tamil, Icelandic, Welsh, Haitian Creole, reasoning with no noun), and
  look-alikes in prose shaped nearest to it (model, GPU and device names, Azure sizes, identifiers
  with digits, quantized model files, builds, hardware, file names alone on their lines, tickets);
  further forms (21 and 23 look-alikes, ``x-opt-``) for a client's password given by an option or
  a position the command table does not know (``hdbsql -p X``, ``winrs -p:X``,
  ``-D…keyStorePassword=X``, ``tcm /login:u,X``, ``CONNECT … USER u USING X``, ``curl -u
  <key>:api_token``), and look-alikes (``iperf3 -w 512K``, ``tar -W``, ``certutil -hashfile``,
  ``curl -u alice:``, help texts); further forms (5 and 4 look-alikes, ``x-stdin-``) for a
  password fed to a client's standard input by a group of commands or as the client's own command
  (``{ echo X; echo X; } | smbpasswd -s``, ``echo 'addauth digest u:X' | zkCli.sh``); further
  forms (8 and 4 look-alikes, ``x-call-``) for a credential given to a call by a constant naming
  it or to an authenticator's constructor (``curl_setopt($ch, CURLOPT_USERPWD, 'u:X')``,
  ``pycurl.USERPWD``, ``CURLOPT_KEYPASSWD``, ``BasicAuthCredentials("u", "<dotted random>")``);
  further forms of these causes written after them (31 and 22 look-alikes, ``x-gen-``: SNMPv3's
  ``-A``/``-X``, ``racadm -p``, ``xfreerdp /p:``, ``vmrun -gp``, Gradle's ``-Psigning.password=``,
  ``--conf spark.ssl.keyPassword=``, ``tf /login:`` in a batch file, ESQL's ``USER :uid USING``, a
  group into ``pdbedit -t``, ``vncpasswd`` or ``adduser``, ``sshfs -o …,password_stdin``,
  ``CURLOPT_PROXYUSERPWD``, JNDI's ``SECURITY_CREDENTIALS``), and look-alikes of ordinary commands
  (``ssh -p 2222``, ``mysql -P 3306``, ``tar -P``, ``grep -P``, ``-o Report_Q3v2.pdf``, ``-n
  WebVm01Prod``, ``(echo yes; echo yes)``); 11 further look-alikes and 8 secrets where they stand
  (``x-hash-``) for a password's stored hash known by its format (``/etc/shadow``, ``.htpasswd``,
  LDIF ``{SSHA}``, argon2id, werkzeug, SCRAM, MySQL's ``*…``; ``$2…`` and ``{…`` passwords that
  only begin like one); 9 look-alikes and 7 secrets for keys public by their vendor's prefix and
  site keys (``x-pub-``: Stripe.js, PostHog, Mapbox ``pk.``, reCAPTCHA and Turnstile site keys,
  Statsig ``client-``, Datadog ``pub…``; ``sk.``, ``secret-``, a ``client_secret`` of
  ``client-…``, a reCAPTCHA secret key), 6 and 5 for the item after a credential's name in a list
  of names (``x-list-``: a schema's ``required``, a ``COPY`` column list, OAuth ``grant_types``; a
  ``(name, value)`` pair and requests' ``auth`` tuple are values), 3 and 3 for an option's value
  after its upper-case keyword (``x-sqlopt-``: DuckDB's ``REGION``, ``ENDPOINT``; its ``SECRET``
  and ``BEARER_TOKEN``), 3 and 2 for a quoted ``"<placeholder>"`` (``x-tpl-``); then 31 secrets
  and 1 look-alike shaped as the exempted look-alikes, written to try each exemption as an
  attacker would: a plaintext or ``$``-holding password under ``password_hash``, passwords that
  begin like a crypt hash, ``{SSHA}``, MySQL's ``*``, a token beside a hash (PostgreSQL's ``md5…``
  hash the look-alike); a password, a URL's token, a bearer token and a secret named on the line
  above of ``client-…`` form, ``pk.`` under an upper-case server setting, ``pub…`` and
  ``pk_live_…`` under a password's name, ``SITE_KEY_SECRET``, ``sitekeyPrivate``; letters-only
  passwords in flat lists, rows, Redis' ``CONFIG SET requirepass``, a Lua table, a passphrase
  joined by ``-``; MySQL's and ClickHouse's ``IDENTIFIED WITH plugin BY 'X'``, ``PASSWORD 'X'
  VALID UNTIL``; an element whose quoted text has its end tag (``'<password>"X"</password>'``).
- batch 10: 182 forms, no look-alikes, blind on ``957a345`` (22 leaked, 12 with ``findings:
  0``; on ``0f9d58e``, before the fixes made from batch 9's forms, 25): the forms written blind
  with batch 9 from the same kinds of source, which a random draw within each source left out
  of it, kept unmeasured and unread until then. They show whether fixes made from batch 9's
  forms reach their siblings. Further forms (11 and 7 look-alikes, ``x-op-``) for an operator
  of code between a quoted credential name and its value, or a prefix on the value's quote
  (``"K" -> "X"``, ``:>``, ``@"X"``, ``<<"K">> => <<"X">>``, ``L"X"``, ``b"X"``); further forms
  (8 and 7 look-alikes, ``x-id-``) for the id half of a key pair named so (``accessKeyId``,
  ``B2_APPLICATION_KEY_ID``, ``secret_id``, ``X-Access-Id``), and ids that are public or names
  (``kid``, ``key_id``, ``client_id``, AWS's ``SecretId``, a KMS key id); further forms (9 and 7
  look-alikes, ``x-list-``) for a list of values under a plural credential name or an auth key
  (``API_KEYS=a,b``, ``"access_tokens": [...]``, ``- X`` under ``webhook_secrets:``, ``- "u:X"``
  under ``basic_auth:``), and lists of secrets' names, token counts, keys that index; further
  forms (13 and 3 look-alikes, ``x-def-``, ``x-hex-``) for a definition directive before a
  credential name (``#define NAME "X"``, ``%define``, ``-DNAME=``) and a sized hex literal under
  a key's name (``256'h…``, VHDL's ``x"…"``), and masks, widths, CRCs, addresses beside them.
- batch 11: 370 forms and 61 look-alikes, blind on ``957a345`` (103 leaked, 84 with ``findings:
  0``; 10 look-alikes damaged), from sources no earlier batch holds: self-hosted apps'
  configuration (Nextcloud, MediaWiki, Moodle, Odoo, ERPNext, Mastodon, Akkoma, Lemmy, Zulip,
  Paperless, Vaultwarden, Meilisearch, Typesense, Qdrant, Authelia, authentik, Ory, ZITADEL,
  Proxmox, TrueNAS, Pi-hole, AdGuard Home), network devices and services (Arista, Junos, VyOS,
  FortiGate, PAN-OS, OpenWrt UCI, UniFi, Meraki, keepalived, FRR, BIRD, RADIUS, TACACS+, NTP and
  chrony keys, shadowsocks, Xray, trojan, SoftEther, Tor, IPMI, iLO, Redfish), database servers
  and pools (Galera, MaxScale, pgBackRest, wal-g, pgpool, Patroni, PgCat, Odyssey, Firebird,
  Sybase, Teradata, SAP HANA, Netezza, Exasol, SQLCipher, H2, Derby, kdb+, ScyllaDB, EdgeDB,
  Dgraph, Hazelcast, Ignite, OpenSearch, Solr, QuestDB, VictoriaMetrics) and SQL of their
  dialects, developer SaaS (SonarQube, Codecov, Renovate, Chromatic, Sauce Labs, analytics,
  support desks, push and chat webhooks of Chinese and other messengers), payment gateways of
  other regions, AI tools (LiteLLM, Helicone, Mistral, Cohere, Voyage, Jina, ElevenLabs, Deepgram,
  Modal, ClearML, Gradio, Dash, Zed, Copilot's hosts.json, Sourcegraph), Windows, Linux and
  virtualization administration (``sc config``, LAPS, MDT, event 4688, Sysmon, cloud-init, NixOS,
  rsyslog, Wazuh, CrowdSec, osquery, s3fs, govc, QEMU, LXD, Harbor, Quay, containerd, ``docker
  inspect``/``history``, ``kubectl describe``, auditd's hex arguments, Ceph, Garage, Storj), code
  in further languages and tools (Ballerina, Apex, ABAP, IEC 61131 ST, AutoHotkey, AutoIt, Inno
  Setup, NSIS, VBScript, Raku, V, Odin, Haxe, ReScript, PureScript, Lean, Pharo, Forth, APL, D,
  Cairo, Move, Vyper, SystemVerilog, Chisel, Gradle Kotlin DSL, Bazel, CMake presets, Spack,
  Capistrano, Deployer, Fabric, pyinfra, Tableau, Looker, Power Query, Apps Script, org-babel, R
  Markdown, Pluto, Stata, Octave, Sage), traces and debug output (OpenTelemetry's debug exporter,
  Jaeger, Zipkin, tshark, ngrep, SSLKEYLOGFILE, Burp, Fiddler, Charles, Linkerd tap, Envoy, Delve,
  lldb, dotnet-dump, jstack, bpftrace, ltrace, netlog, logcat, k6, Locust, JMeter, Artillery,
  Gatling, REST Client files, ``curl --trace-ascii``, ``wget -d``, database and web servers' logs,
  job queues' arguments, structs printed by debuggers and by nine languages' string forms), chat
  exports and notes (WhatsApp, Signal, Obsidian, Logseq, Org drawers, AsciiDoc, reStructuredText,
  MediaWiki, Confluence, Redmine, Bugzilla, Trello, Reddit, Mastodon, Joplin, ENEX, TiddlyWiki,
  BBCode, Teams and Slack cards, password managers' exports), deployment (GitLab and Forgejo
  runners, Cloud Foundry, Juju, Deno Deploy, Render, Koyeb, Octopus, AppVeyor, Cirrus, Argo
  Workflows, AWX, Rundeck, StackStorm, Foreman, Tilt, Skaffold, Garden, Spacelift, Waypoint, Cloud
  Build), DNS and ACME clients (acme.sh, lego, GoDaddy, Porkbun, DuckDNS, deSEC, Namecheap,
  certbot plugins, ``knsupdate``), prose in 49 languages no batch had (Tigrinya, Shahmukhi
  Punjabi, Dari, Bashkir, Chuvash, Quechua, Aymara, Guarani, Haitian Creole, Tok Pisin, Tongan,
  Fula, Lingala, Kirundi, Oromo, Tswana, Sesotho, Dhivehi, Sindhi, Chechen, Sakha, Romansh,
  Friulian, Sicilian, Manx, Cornish, Scots, Low German, Walloon, Limburgish, Kashubian, Hmong,
  Cherokee, Inuktitut, Greenlandic, Tahitian, Bislama, Twi, Ewe, Luganda, Chichewa, Tsonga,
  Bambara, Tetum, Ilocano, Dzongkha, Konkani, Cantonese, Ladino; letters only, words with spaces,
  PINs, hex, UUIDs, base64), encodings and the session's places (title, cwd, last command, a
  failed result, reasoning).

- batch 12: 177 forms, no look-alikes, blind on ``8bf9560`` (32 leaked, 28 with ``findings:
  0``; on ``957a345``, before the fixes made from batch 11's forms, 45): the forms written blind
  with batch 11 from the same kinds of source, which a random draw within each source left out
  of it, kept unmeasured and unread until then. They show whether fixes made from batch 11's
  forms reach their siblings.
- batch 13: 255 forms and 51 look-alikes, blind on ``25c6d39`` (32 leaked, 21 with ``findings:
  0``; 13 look-alikes damaged), two thirds of a batch written blind (the other third, drawn by a
  seeded shuffle, is kept unmeasured as the next batch): AI agents' own configuration (MCP
  servers' ``env`` and ``headers`` in Claude Desktop, Cursor, Windsurf, Cline, Zed, VS Code,
  Gemini CLI, Codex and goose files, ``claude mcp add -e``, the MCP inspector's token, rules files
  such as ``AGENTS.md`` and ``CLAUDE.md``, LibreChat, Open WebUI), home automation and media
  servers (Home Assistant, ESPHome, Node-RED, zigbee2mqtt's byte-list key, Tasmota, Homebridge,
  go2rtc, Z-Wave JS, Shelly, Plex, Jellyfin, the *arr apps, Subsonic's ``p=enc:`` hex, Immich,
  Kodi, NZBGet), message brokers (Kafka JAAS and SASL, kcat, RabbitMQ, the Erlang cookie, NATS,
  MQTT, Artemis, Service Bus and Event Hubs, Solace, EMQX), data and ML tools (Airflow
  connections, dbt, MLflow, W&B, Hugging Face, DVC, Spark, Jupyter, Databricks, Snowflake,
  Kaggle, Neptune, Metabase, Prefect, LangSmith, Superset), backup tools (restic, borg and its
  keyfile, borgmatic, rclone's obscured passwords, duplicity, kopia, Duplicati, Bacula, Proxmox
  Backup, Syncthing, SSE-C keys), network gear (IOS type 7 and SNMPv3, Junos ``$9$``, RouterOS,
  pfSense, OPNsense, WireGuard, strongSwan, OpenVPN, EdgeOS, ArubaOS, ASA, hostapd, netplan,
  headscale, NetBird, ZeroTier), VoIP (Asterisk, FreeSWITCH, voicemail PINs, Grandstream's
  P-values, Yealink, Kamailio, linphone), Windows administration (cmdkey, ``net use``, PsExec,
  ``ConvertTo-SecureString``, Unattend.xml's UTF-16LE base64, schtasks, Winlogon, netsh, IIS,
  machineKey, BitLocker recovery passwords, product keys, wmic), macOS (``security``, ``defaults``,
  launchd, dscl, sysadminctl, app-specific passwords), mobile signing (Gradle, keytool,
  apksigner, fastlane, ``.p8``, xcconfig, ``--dart-define``, EAS), game servers (Minecraft,
  Source, Factorio, Valheim, ARK, Palworld, Rust, Pterodactyl, TeamSpeak, steamcmd), mail
  (mutt, fetchmail, Thunderbird, Postfix, Dovecot, ssmtp, exim, swaks, IMAP and SMTP
  transcripts), HPC (Slurm, conda token channels, Globus, JupyterHub, Apptainer), wallets
  (mnemonics, hex and WIF keys, a Solana byte list, xprv, a macaroon), payments (card numbers,
  Adyen, Square, Braintree, Mollie, Razorpay, PayPal, QuickBooks, Plaid, Wise), fixtures and
  seeds, traces of Elixir, Rust, Zig, Kotlin, Swift, Flutter, R, Julia, Gleam, OCaml, Crystal,
  Go, .NET, Nim and Scala, chat exports (Slack, Teams, WeeChat, Matrix, Discord, Telegram's
  entities, Mattermost, Zulip, Jira's ADF), prose mixing two languages in one message,
  screen-copied text (a wrapped token, a soft hyphen, a zero-width space, NBSP, a box-drawn
  table, console pages, a Wi-Fi QR payload), values split in code (``"A" + "B"``, ``join``,
  adjacent quotes, ``CONCAT``, ``concat!``), URLs' query strings of other services, and the
  session's places; look-alikes from the same sources (references and placeholders, ids,
  digests, public keys, DKIM records and signatures, a Digest response, fingerprints, lockfile
  hashes, an IBAN, Django's unusable password, a public Mapbox token); further forms (22 and 12
  look-alikes, ``x-split-``) for a value split into literals joined in code, in syntaxes and places
  the batch does not hold (JS, Lua's ``..``, PHP's and Perl's ``.``, SQL's ``||``, VB's ``&`` and
  ``& _``, Elixir's ``<>``, Jinja's ``~``, ``"".join``, C's adjacent literals, Python's in
  parentheses, the shell's ``'ab'"cd"`` and a backslash-newline, Ruby's ``"ab" \\``, MySQL's
  ``CONCAT`` into a variable, C#'s ``string.Concat``, Java's ``String.join``), and literals joined
  beside credential names that are no credential (a variable's name, a URL, a path, a label, a
  log prefix, columns); further forms (19 and 13 look-alikes, ``x-rec-``) for a credential by its
  place in a record of a file no reader knew (Dovecot's ``{CLEARTEXT}`` in grep rows,
  ``doveadm pw -s PLAIN``'s output, ipsec.secrets' ``XAUTH``, ``NTLM``, ``PSK`` between two ids
  and ``EAP`` of words, exim's ``passwd.client`` printed by ``cat``, Postfix's ``sasl_passwd``,
  davfs2's ``secrets`` printed and with a quoted user, ppp's ``chap-secrets`` and
  ``pap-secrets``, ``rsyncd.secrets``, a plain mosquitto password file, Wi-Fi QR payloads
  quoted, in ``qrencode``'s argument, of letters only and in an f-string), and ``/etc/passwd``,
  ``/etc/group``, ``/etc/shadow``'s locked fields, ``fstab``, a crontab, ``host:port:db`` lines,
  an open network's QR payload, ipsec.secrets' key files, a commented davfs2 or exim template,
  ``/etc/subuid``, ``/etc/aliases``, ``/etc/hosts``; 5 look-alikes written after the fix
  (``/etc/passwd`` under its path, the QR format's placeholders, hashed schemes and a bcrypt
  hash under a layout comment, ipsec.secrets' ``%prompt``); further look-alikes for the causes
  of its damaged look-alikes, with the secrets that must still be redacted beside them
  (``x-ok14-``, ``x-lk14-``): 13 and 9 for a digest, a signature or a fingerprint labelled as
  such (``-dg-``: ARC seals, HTTP ``Digest:`` and message signatures, Digest answers,
  ``ssh-keygen -l``, ``openssl x509 -fingerprint``, ``signingReport``, ``gpg --fingerprint``,
  algorithm names; a relay token beside a DKIM signature, ``--b=X``, ``curl --digest -u``,
  ``-storepass``, colon-hex keys under a credential's name, SNMPv3's passphrases); 6 and 3 for a
  path that is no value (``-path-``: ``mount -o credentials=<path>,vers=…``, fstab with tabs,
  ``docker build --secret id=…,src=<path>``, ``sha256sum`` and ``md5sum`` listings, ``rclone
  check``; a password among mount options, random values ending in ``.pem`` under credential
  names, a token in a ``TOKEN`` column); 4 and 2 for an id in a URL's path after its port
  (``-url-port-``: Home Assistant, GitLab, Jellyfin, Grafana; webhook tokens, a hex token as the
  last segment); 3 and 2 for the word for a password as a URL's password (``-ph-url-``; real
  passwords that begin so, a letters-only one); 5 and 3 for an IBAN (``-iban-``: JSON, a
  Markdown table, SEPA XML, prose, a German CSV header; secrets shaped as one, under a password's
  name, under an ``api_key`` column); 6 and 4 for the name of a secret (``-name-``: gcloud's
  ``--secret=``, az keyvault's ``--name``, pjsip.conf's ``auth=6001-auth``, compose's secrets,
  vault's ``-field=``, a ``secretKeyRef``; the value set beside its name, a literal ``--secret=``,
  a token that begins with words naming a key, a passphrase of words and digits); 3 and 1 for a
  literal closing its object (``-lit-``: ``"password": true}``, ``null }``, YAML flags); 3 and 1
  for a version (``-ver-``: commit subjects, prose, a changelog; values that begin as a version);
  2 and 1 for Django's unusable-password marker (``-unusable-``); 2 and 1 for SIP's ``branch=``
  (``-sip-``); 2 and 1 for values shaped as the document's ids (``-ids-``: Node-RED, a graph's
  edges; hex secrets of that shape under credential names); 1 and 1 for a two-item list of field
  names under a list's name (``-fields-``; ``(name, value)`` pairs); 1 secret form for values
  that end where their syntax ends them (``-end-``; ``test_value_ends.py`` checks what follows).
- batch 14: 134 forms and 19 look-alikes, blind on ``55126cc`` (21 leaked, 16 with ``findings:
  0``; 3 look-alikes damaged): the third of batch 13's writing that a seeded shuffle kept
  unmeasured and unread while batch 13's forms were fixed, from the same kinds of source. It
  shows whether those fixes reach their siblings. Further forms (12 and 7 look-alikes,
  ``x-seed14-``) for a wallet's seed phrase by what it is: BIP-39 and Electrum seeds of 12 to 24
  words in an ``.env``, a JSON field, one word a line, numbered, comma-separated, in a title, in
  prose with no noun, in a hardhat config, in ``electrum restore`` and ``cast --mnemonic``, an
  Electrum wallet file's ``seed``, and a made-up phrase under ``recovery_phrase``; look-alikes of
  README prose, stop words, the all-zero test vector, a lexer's repeated words, a shopping list,
  photo tags and the wordlist's first words in prose. Further forms (21 and 15 look-alikes,
  ``x-key14-``) for key material named as a key: OpenVPN static keys inline (``<tls-auth>``,
  ``<tls-crypt>`` in hashline rows), by ``cat`` and in a diff, a base64 ``MASTER KEY BLOCK``, Rails'
  ``SECRET_KEY_BASE``, Flask's ``SECRET_KEY``, a YAML ``hmac_key``, ``JWT_SECRET``, machineKey, a
  ``session_key``, a PGP private key block, a TOML ``master_key``, an XML ``EncryptionKey``, a JSON
  ``signingKey``, a JS ``hmacKey``, PowerShell's ``$AppKey``, and digests' lengths under
  ``ticketKey``, ``macKey``, ``clusterKey``, ``deviceKey``; look-alikes of checksums under
  ``sha512:``, a ``.sha256`` line, ``git log``, certificate, public-key and PGP public blocks,
  Cargo.lock's ``checksum``, a key's fingerprint, flake.lock's ``rev``, an ed25519 public key, a
  ``cacheKey``/``keyHash``/``publicKey``, a ``PUBLIC KEY V1`` block, an ``Idempotency-Key``, a
  ``partitionKey`` and ``sha512sum`` of a key file.

Each form is planted where its batch planted it (batch 4 on: also an assistant's reasoning
summary; batch 6: also the session's title; batch 7 on: its ``cwd`` and ``last_command``) and
exported as JSON: no secret of it survives, plain, escaped or decoded (batch 3's views; batch 4 adds HTML character references and an
``xxd`` dump's hex; batch 5 on adds ``\\xNN`` and octal escapes, base64 words inside wrapped rows
and plain hex runs), and no export is blocked; a look-alike's text comes out as it went in. What
still leaks is named in ``LIMITS`` with the reason (docs/security.md states them too).
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import html
import json
import re
import unicodedata
import urllib.parse
from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from rho_desk.core.export import ExportResult, Selection, export_snapshot
from rho_desk.core.wire.codec import decode_snapshot

KEY = bytes(range(32))


# --- what still leaks, per batch ---------------------------------------------------------------

_LIMITS_3: dict[str, str] = {
    "cfg-haproxy-userlist": "haproxy `stats auth user:X`: a directive's user:password word",
    "cfg-postfix-sasl": "postfix sasl_passwd `host user:X` with a letters-only app password",
    "sh-read-s-transcript": "a value echoed after `read -s`: nothing names it on its line",
    "vendor-razorpay-neutral-json": "`rzp_live_` is Razorpay's key id (shown in checkout pages); the batch counted it as a secret",
    "enc-go-byte-slice": "a Go byte slice of hex literals is not decoded",
    "enc-java-char-array": "a Java char array is not decoded",
    "enc-b64-wrapped-short-lines": "base64 wrapped at 8 columns: its lines are shorter than a wrapped blob's",
    "key-bitcoin-wif": "a bitcoin WIF key as a command's argument: base58, no name",
    "key-solana-keypair": "a keypair as a JSON array of 64 byte values",
    "key-otpauth-migration": "otpauth-migration:// data (protobuf of TOTP seeds, base64)",
    "url-phpsessid": "`PHPSESSID=X` outside a Cookie header: the gate's keywords are not in the name",
    "x-cfg-pgpass-grep-rows": "a .pgpass line in grep rows: the row's `path:1:` reads as its first fields",
    "x-code-swift-keychain-set": 'Swift `keychain.set("X", forKey: "token")`: the name comes after the value',
}
_UNFLAGGED_3_KEY_ID = (
    "a key id, not a secret: 14 characters after its prefix, too few to look random"
)

_LIMITS_4: dict[str, str] = {}

_LIMITS_5: dict[str, str] = {
    "mail-postfix-sasl-passwd": "Postfix `sasl_passwd`: `[host]:port user:four letter groups` (a Gmail app password)",
    "nb-output-env": "a notebook's output holding the value, its name in the cell's source after it",
    "x-prompt-ftp-user": "`ftp> user NAME X`: ftp's `user` command is no verb of the directive reader",
    "x-ck-requests-jar-set": '`jar.set("PHPSESSID", X)`: a cookie jar\'s `set` by position, no word `cookie` on its line',
}

# batch 6, by cause (the cause, not the form)
_NEXT_LINE = "the value is on a line after its name's"
_SIBLING = "the name is in a sibling field (`name`), the value under the neutral `value`"
_TABLE = "a table the structure reader does not read"
_ARGV = "a client's argument by position or option the command table does not know"
_NAME = "a name the grammar does not read as a credential's"
_WORDS = "a value of plain words or letters under a credential name"
_ENCODED = "an encoding the decoders do not read"

_LIMITS_6: dict[str, str] = {
    "cli-vault-approle-secret-id": f"{_TABLE}: vault's Key/Value table, `secret_id` holding a UUID",
    "db-pgbouncer-userlist": f'{_TABLE}: pgbouncer userlist `"user" "X"` rows (the second row\'s `X8A9FerYV6go7UiQ`; the first\'s password-shaped value is redacted)',
    "game-vdf-password": f'{_TABLE}: Valve KeyValues `"BuildPassword"<tab>"X"`',
    "dump-strace-write-auth": f"{_ARGV}: Redis' wire protocol `AUTH` inside an strace line",
    "pkg-gem-push-key": f"{_NAME}: `~/.gem/credentials` `:host: X`",
    "mob-fastlane-match-env": f"{_WORDS}: prose `MATCH_PASSWORD is letters`",
    "vpn-netsh-key-content": f"{_WORDS}: netsh `Key Content : two words 42`, a name of two words padded before its `:`",
    "prose-en-pin": f"{_WORDS}: prose `pin … is word-7731`",
    "enc-py-fromhex": f'{_NAME}: `SIGNING_SALT = bytes.fromhex("…")`: a salt names no credential (a signing salt need not be secret), and its 24 hex digits are fewer than the hex decoder reads (32)',
    "x-keycontent-netsh-de": "netsh `Key Content            : words`: a name of two words padded before its `:`, which no reader takes as one name",
    "x-tabop-space-and-tab": "letters only under a spaced `=` in grep rows of a `.conf`, no INI section around: read as code's `name = word`",
}


# batch 7, by cause
_POSITION = "a credential passed by position to a client's call, no name beside it"
_ALONE = "the value printed alone on the line after what names it"
_FOREIGN = "prose in a language whose credential noun the prose reader does not know"

_LIMITS_7: dict[str, str] = {
    "loc-write-pass-show": f"{_ALONE}: a pass entry's first line, `user:` after it",
    "k8s-describe-configmap": f"{_ALONE}: kubectl describe configmap's `NAME:` / `----` / value",
    "dburl-go-snowflake-dsn": f"{_NAME}: Go Snowflake DSN `user:X@account/db/schema`, no scheme",
    "shape-unicode-letters": f"{_WORDS}: non-ASCII letters under `contraseña_admin:`",
}


# batch 8, by cause (new causes; the others are batch 6's and 7's)
_BARE = "key material or codes on lines of their own, under a header or a heading that says what they are"
_RECORD = "a colon- or space-separated record (`user:X:…`, `host user X`) of a file no reader knows"
_PRINTED = "a literal printed by a command that a configuration or script runs for the password"
_DIRECTIVE = "a directive `name X` whose name or layout no reader takes as a credential's"
_PROSE_8 = "prose in English: the value after words that are no link or name no credential"

_LIMITS_8: dict[str, str] = {
    "bot-maubot-config": f"{_NAME}: maubot `admins:` / `mv: X`: a password under its user's name",
    "bot-znc-conf": f"{_DIRECTIVE}: znc.conf `Server = host +port X`",
    "ds-airflow-cfg-fernet": f"{_NAME}: airflow.cfg `fernet_key = <base64>`",
    "mq-kafka-console-props": f"{_NAME}: a Confluent API key as the JAAS `username=` (a key id, which the batch counted)",
    "oauth-device-code-response": f'{_NAME}: `"device_code":` in a device authorization response',
    "oauth-pkce-debug-log": f"{_NAME}: oauthlib's `Generated code_verifier: X`",
    "lic-sidekiq-pro-bundle": f"{_NAME}: the user half of `BUNDLE_GEMS__CONTRIBSYS__COM=user:X` (an account id, which the batch counted)",
    "totp-pyotp": f'{_POSITION}: `pyotp.TOTP("<base32 seed>")`',
    "vpn-wg-show-dump": f"{_TABLE}: `wg show all dump`: a tab-separated row with no header",
    "iot-thingspeak-write": f'{_POSITION}: `ThingSpeak.writeFields(channel, "X")`',
    "err-php-pdo-trace": f"{_POSITION}: `PDO->__construct('mysql:…', 'user', 'X')` in a PHP stack trace",
    "proxy-cntlm-password-plain": f"{_DIRECTIVE}: cntlm.conf `Password<tab>X` in grep rows, no section around",
    "dump-pg-copy": f"{_TABLE}: pg_dump `COPY t (…, key, …) FROM stdin;` and its tab-separated rows",
    "dump-sqlite-dump": f"{_TABLE}: sqlite `.dump`: `INSERT INTO t VALUES(…,'X')`, the columns named in the CREATE TABLE above",
    "dump-psql-expanded": f"{_TABLE}: psql `\\x` expanded record `client_secret | X`",
    "prose-user-wifi-guest": f"{_PROSE_8}: `the code on the fridge is X`",
    "prose-user-passphrase-quote": f'{_WORDS}: `passphrase is literally "words"`',
    "prose-user-sms-code": f"{_PROSE_8}: six digits after `it texted me the code`",
    "prose-reasoning-found-in-history": f"{_PROSE_8}: `the earlier … call set it to <uuid>`",
    "prose-user-question-echo": f"{_WORDS}: `echo $NAME print words-joined-by-dashes`",
    "shape-backtick-inline": f"{_WORDS}: `set `NAME` to `four words``",
    "x-argv-netbird-k": f"{_ARGV}: `netbird up -k <uuid>`: a UUID after a one-letter option reads as an id",
    "x-argv-askpass-script-echo": f"{_PRINTED}: an askpass script's lone `echo 'X'`",
    # further forms of the causes fixed since (key material and codes on lines of their own,
    # records of credential files, encodings) that still leak
    "x-bare-kubeadm-cert-key": f"{_ALONE}: `Using certificate key:`, then 64 hex digits (a digest's length) alone",
    "x-bare-keybase-paper-key": f"{_ALONE}: a paper key's words under `Here is your secret paper key phrase:`",
    "x-rec-vsftpd-vusers": f"{_RECORD}: vsftpd's virtual users file, user and password on alternate lines",
    "x-rec-passfile-comment": f"{_RECORD}: `# host user X` under `# saved password (plaintext):`",
    # further forms of the causes fixed since (a literal wrapped in code under a credential name,
    # an element named by an attribute among others, a quote JSON-escaped before a value)
    "x-wrap-spring-encode": f'{_NAME}: `setPassword(passwordEncoder.encode("X"))`: a credential-named call whose first argument is a call, not a literal',
    "x-esc-isync-json-passcmd": f'{_PRINTED}: `{{"PassCmd": "echo X"}}`: a setting in JSON, no command line read',
}
_UNFLAGGED_8 = {
    "bot-maubot-config",
    "bot-znc-conf",
    "ds-airflow-cfg-fernet",
    "lic-sidekiq-pro-bundle",
    "prose-user-wifi-guest",
    "prose-user-sms-code",
    "prose-reasoning-found-in-history",
    "prose-user-question-echo",
    "x-argv-netbird-k",
    "x-bare-kubeadm-cert-key",
    "x-bare-keybase-paper-key",
    "x-wrap-spring-encode",
}
# batch 9, by cause (new causes; the others are batch 6's, 7's and 8's)
_LOGGED = (
    "a value a log prints by position (bound parameters, a filled-in statement), no name beside it"
)
_SEPARATOR = "a credential name and its value joined by a separator no reader knows"
_PROSE_9 = "prose: the value after words that are no link or name of a credential"

_LIMITS_9: dict[str, str] = {
    "ide-heidisql-settings": f"{_SEPARATOR}: HeidiSQL's `Servers\\…\\Password<|||>1<|||>X`",
    "url-youtube-stream-key": f'{_NAME}: OBS service.json `"key":` beside `"server": "rtmp://…"` (a stream key)',
    "sdk-launchdarkly-sdk-key": f'{_POSITION}: `Config("sdk-<uuid>")`: a vendor prefix the catalogue does not hold',
    "sdk-firecrawl-exa": f'{_POSITION}: `Exa("<uuid>")` in reasoning prose',
    "sdk-dropbox-short-lived": f'{_POSITION}: `dropbox.Dropbox("sl.u.…")`: a vendor prefix the catalogue does not hold',
    "nl-zu": f"{_FOREIGN}: Zulu `iphasiwedi`; the value `05h-oZ0-Nay1_0` in groups of two or three pieces, as a name's (the prose reader's shape)",
    "nl-ku": f"{_FOREIGN}: Kurmanji `şîfre`, the value before the copula; `tIna_ZEGv7-E_5` in groups of few pieces, as a name's (the prose reader's shape)",
    "chat-discord-spoiler": "a Discord bot token between spoiler bars `||…||`",
    "chat-reasoning-table": f"{_PROSE_9}: a list `- dev: token `<40 hex>` (works)`: 40 hex digits (a SHA-1's length) in backticks",
    "code-meson-option": f"{_SIBLING}: meson `option('license_key', …, value : 'X')`",
    "x-pw-qu": f"{_FOREIGN}: Quechua, a value of 11 characters (the prose reader's shape reads 12 or more)",
    "x-pw-ht-groups": f"{_FOREIGN}: Haitian Creole, `wT3-Kx9-Rb2Mq` in groups of few pieces, as a name's",
    "x-log-gorm-inline": f"{_LOGGED}: GORM's `VALUES (…,'s3cr3t-webhook-key',…)` under `signing_secret`: a value ending in `-key` reads as a name, not a literal",
    # further forms of the look-alikes' causes fixed since (stored hashes, lists of names)
    "x-hash-plain-in-hash-column": "a plaintext password in a `password_hash` column: a name ending in hash names a digest (it leaks on main too)",
    "x-hash-plain-yaml-hash-key": "a generated password under `password_hash:`: a name ending in hash names a digest (it leaks on main too)",
    "x-list-row-short-lower": '`("ops", "password", "marmalade")`: a word of ten lower-case letters or fewer after a credential\'s name in a list of three reads as the next name',
}
_UNFLAGGED_9 = {
    "x-log-gorm-inline",
    "x-list-row-short-lower",
    "ide-heidisql-settings",
    "url-youtube-stream-key",
    "sdk-launchdarkly-sdk-key",
    "sdk-firecrawl-exa",
    "nl-zu",
    "nl-ku",
    "chat-reasoning-table",
    "code-meson-option",
    "x-pw-qu",
    "x-pw-ht-groups",
}

# batch 10 (batch 9's reserve, measured blind on 957a345), by cause
_LIMITS_10: dict[str, str] = {
    "ide-hexchat-servlist": f"{_NAME}: HexChat's single-letter `P=X` among `N=`, `U=`, `S=`",
    "trace-python-better-exceptions": f"{_LOGGED}: better_exceptions' `│ └ 'X'` tree under `Mollie(api_key, …)`",
    "trace-scala-case-class": f"{_LOGGED}: a case class printed `DbConf(jdbc:…,orders,X,10)`, no names",
    "sql-mysql-aes-encrypt": f"{_POSITION}: the key argument of `AES_ENCRYPT(…, UNHEX(SHA2('X', 256)))`",
    "x-def-c-spaced-tab": f'{_NAME}: `#define\\tNAME\\t"X"`: tabs JSON-escaped between the directive\'s words, which the structure gate does not take as spaces',
    "x-def-verilog-backtick": f"{_NAME}: Verilog's `` `define SECRET_SEED 64'h<hex> ``: a sized literal as a directive's bare value",
    "x-hex-vhdl-constant": f'{_NAME}: VHDL\'s `constant AES_KEY : std_logic_vector(…) := x"<hex>"`: a type between the name and `:=`',
    "x-hex-verilog-underscores": f"{_NAME}: `localparam [127:0] K = 128'h…` named `K`, the word key only in a comment",
}
_UNFLAGGED_10 = {
    "x-def-verilog-backtick",
    "x-hex-vhdl-constant",
    "x-hex-verilog-underscores",
    "trace-scala-case-class",
}

# batch 11 (written blind, measured on 957a345), by cause
_LIMITS_11: dict[str, str] = {
    "sh-proxmox-token-output": f"{_TABLE}: `pveum user token add`'s box-drawn key/value table, the token a UUID in the `value` row",
    "net-openwrt-uci-wifi": f"{_WORDS}: OpenWrt UCI `option key 'four words'`",
    "net-openwrt-uci-set": f"{_NAME}: `uci set wireless.<iface>.key='X'` (a dotted path ending in `key`)",
    "net-radtest": f"{_ARGV}: `radtest user X server port X` by position",
    "net-ntp-keys": f"{_RECORD}: ntp.keys `id type key` rows",
    "net-chrony-keys": f"{_RECORD}: chrony.keys `1 SHA1 HEX:<40 hex>` (the AES128 row is redacted)",
    "net-mullvad-account": f"{_ARGV}: `mullvad account login <16 digits>` (the account number is the login)",
    "net-protonvpn-ovpn-auth": f"{_BARE}: an OpenVPN `auth-user-pass` file, the password alone on line 2 (line 1 is redacted)",
    "net-tor-hidserv-auth": f"{_RECORD}: Tor's `<onion>:descriptor:x25519:<base32 key>`",
    "db-pgbackrest-conf": f"{_NAME}: pgBackRest `repo1-s3-key=` (the key id half; `-key-secret` and `cipher-pass` are redacted)",
    "db-hana-hdbuserstore": f"{_ARGV}: `hdbuserstore SET KEY host user X` by position",
    "db-kdb-hopen": f"{_RECORD}: kdb+ ``hopen `:host:port:user:X``",
    "db-dgraph-login": "a JWT's payload and signature after its header (the header alone is redacted; the form's payload is not base64 JSON)",
    "db-aerospike-conf": f"{_ARGV}: `asinfo -U admin -P X` in a configuration's comment",
    "db-mongo-keyfile-inline": f"{_BARE}: a keyfile's base64 in a comment under `# keyfile contents`",
    "saas-saucelabs-key": "a UUID under `key:` in wdio.conf.js (Sauce Labs' access key): read as an id",
    "saas-signal-cli-register": f"{_ARGV}: `signal-cli verify <code> --pin <digits>`",
    "ai-modal-toml": f'{_NAME}: Modal\'s `token_id = "ak-…"` (the id half; `token_secret` is redacted)',
    "ai-dash-auth-pairs": f"{_NAME}: Dash's `VALID_USERNAME_PASSWORD_PAIRS` dict, a user's name as each key",
    "ai-codeium-key": 'a UUID as an Emacs `(setq codeium/metadata/api_key "…")`: read as an id',
    "sys-s3fs-passwd": f"{_RECORD}: `.passwd-s3fs` `ACCESS:SECRET` (the access key id half)",
    "sys-useradd-chpasswd-heredoc": f"{_RECORD}: `chpasswd` heredoc `user:X` rows (the first row is redacted)",
    "code-apex-named-cred": f"{_POSITION}: Apex `Blob.valueOf('user:' + 'X')`",
    "code-autohotkey": f'{_POSITION}: AutoHotkey `Send "X{{Enter}}"`',
    "code-autoit": f'{_POSITION}: AutoIt `ControlSetText("Login", "", "Edit2", "X")`',
    "code-nsis": 'a value copied into a register (`StrCpy $0 "X"`) that a later `/password $0` names',
    "code-raku": f"{_SEPARATOR}: Raku's colon pair `:password<X>`",
    "code-move": f"{_BARE}: a 0x hex key in a comment under `// deployer key`",
    "code-systemverilog": "a Verilog sized literal `128'h<hex>` under `AES_IV` (an IV names no credential; the `AES_KEY` line is redacted)",
    "code-spack-mirror": f"{_SIBLING}: spack's `access_pair: [ID, SECRET]` flow list",
    "code-org-babel": f"{_ARGV}: an org-babel header argument `:dbpassword X`",
    "code-octave": f'{_POSITION}: Octave/MATLAB `database("dw", "user", "X", …)`',
    "tr-sslkeylog": f"{_RECORD}: SSLKEYLOGFILE `LABEL <client random> <secret>`: the public client random is redacted, the secret after it kept",
    "tr-lldb-frame-variable": 'lldb\'s `(NSString *) password = 0x… @"X"`: the pointer read as the value, the string after it kept',
    "tr-ltrace-getpass": f'{_PRINTED}: ltrace\'s `getpass("…password: ") = "X"` (a call\'s return value)',
    "tr-jmeter-jmx": f"{_SIBLING}: JMeter's `Argument.value` before `Argument.name` = password",
    "tr-gunicorn-access-query": "an 8-digit reset `code=` in an access log's query",
    "tr-sidekiq-retry": f"{_LOGGED}: a Sidekiq job's `args` list",
    "pr-ba": f"{_FOREIGN}: Bashkir",
    "pr-cv": f"{_FOREIGN}: Chuvash",
    "pr-qu": f"{_FOREIGN}: Quechua",
    "pr-ay": f"{_FOREIGN}: Aymara",
    "pr-to": f"{_FOREIGN}: Tongan",
    "pr-ln": f"{_FOREIGN}: Lingala",
    "pr-st": f"{_FOREIGN}: Sesotho",
    "pr-dv": f"{_FOREIGN}: Dhivehi",
    "pr-ce": f"{_FOREIGN}: Chechen",
    "pr-sah": f"{_FOREIGN}: Sakha",
    "pr-fur": f"{_FOREIGN}: Friulian",
    "pr-scn": f"{_FOREIGN}: Sicilian",
    "pr-gv": f"{_FOREIGN}: Manx",
    "pr-wa": f"{_FOREIGN}: Walloon",
    "pr-hmn": f"{_FOREIGN}: Hmong",
    "pr-chr": f"{_FOREIGN}: Cherokee",
    "pr-kl": f"{_FOREIGN}: Greenlandic",
    "pr-ty": f"{_FOREIGN}: Tahitian",
    "pr-bi": f"{_FOREIGN}: Bislama",
    "pr-ak": f"{_FOREIGN}: Twi",
    "pr-ts": f"{_FOREIGN}: Tsonga",
    "pr-ilo": f"{_FOREIGN}: Ilocano",
    "pr-dz": f"{_FOREIGN}: Dzongkha",
    "pr-lad": f"{_FOREIGN}: Ladino",
    "pr-ht-letters": f"{_FOREIGN}: Haitian Creole `modpas … se X`, a letters-only value",
    "pr-tpi-letters-caps": f"{_FOREIGN}: Tok Pisin `pasword em X`, upper-case words with spaces",
    "pr-ti-mixed": f"{_FOREIGN}: Tigrinya quoted in an English reasoning summary",
    "cn-whatsapp-export": f"{_ALONE}: a WhatsApp export's reply holding only the value, after a question naming it (Portuguese `senha`)",
    "cn-signal-export": f"{_PROSE_9}: `user ext-kim / X` in a chat export",
    "cn-slack-blockkit": f"{_NEXT_LINE}: Slack block kit's `*Token:*\\n`X`` (a JSON-escaped line break)",
    "loc-cwd-token-dir": "a runner's token-shaped directory `runner-<32 alnum>` in the cwd",
    "loc-user-paste-two": f"{_PROSE_9}: the second of two values labelled after them (`X (prod) and Y (staging)`; the first is redacted)",
    "loc-user-colon-list": f"{_SEPARATOR}: `pass - X`",
    "loc-write-notes": f"{_NAME}: `- grafana admin: X` (a service and a role, no credential noun; the `minio root:` line is redacted)",
    "dns-caddy-cloudflare": f"{_DIRECTIVE}: Caddy's `acme_dns cloudflare <token>`",
}
_UNFLAGGED_11 = {
    "sh-proxmox-token-output",
    "net-openwrt-uci-wifi",
    "net-radtest",
    "net-ntp-keys",
    "net-chrony-keys",
    "net-mullvad-account",
    "net-tor-hidserv-auth",
    "db-hana-hdbuserstore",
    "db-kdb-hopen",
    "db-aerospike-conf",
    "saas-saucelabs-key",
    "saas-signal-cli-register",
    "ai-modal-toml",
    "ai-codeium-key",
    "sys-s3fs-passwd",
    "sys-useradd-chpasswd-heredoc",
    "code-autohotkey",
    "code-nsis",
    "code-raku",
    "code-move",
    "code-systemverilog",
    "code-octave",
    "tr-sslkeylog",
    "tr-jmeter-jmx",
    "tr-gunicorn-access-query",
    "tr-sidekiq-retry",
    "pr-ba",
    "pr-cv",
    "pr-qu",
    "pr-ay",
    "pr-to",
    "pr-ln",
    "pr-st",
    "pr-dv",
    "pr-ce",
    "pr-sah",
    "pr-fur",
    "pr-scn",
    "pr-gv",
    "pr-wa",
    "pr-hmn",
    "pr-chr",
    "pr-kl",
    "pr-ty",
    "pr-bi",
    "pr-ak",
    "pr-ts",
    "pr-ilo",
    "pr-dz",
    "pr-lad",
    "pr-ht-letters",
    "pr-tpi-letters-caps",
    "pr-ti-mixed",
    "cn-whatsapp-export",
    "cn-signal-export",
    "loc-user-paste-two",
    "loc-user-colon-list",
    "loc-write-notes",
}

# batch 12 (batch 11's reserve, measured blind on 8bf9560), by cause
_URL_KEY = "a key in a URL's path after a segment no slot list names"
_LIMITS_12: dict[str, str] = {
    "sh-akkoma-prod-secret": f'{_NAME}: Phoenix\'s `signing_salt: "X"` (a salt names no credential; `secret_key_base` is redacted)',
    "net-arista-username-secret": f"{_WORDS}: Arista's `username ops secret 0 <three words>` (the random value on the line above is redacted)",
    "net-paloalto-keygen": f"{_NAME}: PAN-OS keygen's XML answer `<result><key>X</key>` (an element named only `key`)",
    "net-xray-vless-uuid": "a UUID under `\"id\"` in Xray's VLESS `clients` (the client's credential): read as an id",
    "net-expressvpn-activate": f"{_NAME}: `Enter activation code: X` (an activation code names no credential)",
    "db-teradata-bteq-logon": f"{_DIRECTIVE}: Teradata BTEQ's `.LOGON host/user,X;`",
    "db-h2-url": "H2's `PASSWORD=<file password> <user password>` beside `CIPHER=`: the word after the space (the first is redacted)",
    "saas-pushover-curl": f'{_NAME}: Pushover\'s `--form-string "user=X"` (the user key, which the batch counted; `token=` is redacted)',
    "pay-phonepe-salt": "a UUID under `PHONEPE_SALT_KEY=`: read as an id",
    "sys-qemu-object-secret": f"{_ARGV}: QEMU's `-object secret,id=sec0,data=X` (a value named `data` in an option's comma list)",
    "sys-storj-access-grant": f"{_ARGV}: `uplink access import main <access grant>` by position",
    "code-cairo": f"{_NAME}: Cairo's `const ADMIN_PRIVATE_KEY: felt252 = 0x<63 hex>` (a type between the name and `=`)",
    "tr-jaeger-span-tags": f"{_LOGGED}: Redis' `AUTH default X` as a span's `db.statement` tag",
    "tr-celery-task-args": f"{_LOGGED}: Celery's `received: args=('host', 'user', 'X')`",
    "pr-gn": f"{_FOREIGN}: Guarani",
    "pr-nah": f"{_FOREIGN}: Nahuatl, a value of 10 letters and digits",
    "pr-fj": f"{_FOREIGN}: Fijian",
    "pr-wo": f"{_FOREIGN}: Wolof",
    "pr-as": f"{_FOREIGN}: Assamese",
    "pr-sm-passphrase": f"{_FOREIGN}: Samoan, a passphrase of five words",
    "pr-wo-pin": f"{_FOREIGN}: Wolof, a four-digit PIN",
    "pr-qu-uuid": f"{_FOREIGN}: Quechua, a UUID (read as an id)",
    "pr-om-short": f"{_FOREIGN}: Oromo, eight letters",
    "pr-bo-digits": f"{_FOREIGN}: Tibetan, six digits",
    "cn-bbcode": f"{_PROSE_9}: BBCode `FTP login … [b]user[/b] / [spoiler]X[/spoiler]`",
    "x-url-cronitor-ping": f"{_URL_KEY}: Cronitor's `/p/<key>/<monitor>` (`p` names no key's slot)",
    "x-url-oncall-webhook": f"{_URL_KEY}: Grafana OnCall's `/integrations/v1/formatted_webhook/<token>/` (the slot two segments back)",
    "x-log-laravel-select": f"{_LOGGED}: a `SELECT … WHERE api_token = ?` and its bindings (the statements read are `INSERT` and `UPDATE … SET`)",
    "x-log-sqlx-args": f'{_LOGGED}: a Go logger\'s `args="[ci-bot X]"`, the values split by spaces',
    "x-code-md-table": f"{_TABLE}: a Markdown table's `PIN` and `PUK` columns of short digits (a table's cell is read by the credential grammar's verdicts, not a code's)",
}
_UNFLAGGED_12 = set(_LIMITS_12) - {
    "x-url-oncall-webhook",
    "net-expressvpn-activate",
    "saas-pushover-curl",
    "tr-jaeger-span-tags",
    "tr-celery-task-args",
}


# batch 13 (measured blind on 25c6d39), by cause
_LIMITS_13: dict[str, str] = {
    "fx-prisma-seed-bcrypt": f'{_POSITION}: `bcrypt.hash("X", 10)` (the plaintext a seed script hashes)',
    "win-netsh-wlan-key-clear": f"{_WORDS}: netsh's `Key Content : <three words>`",
    "chat-mattermost-jsonl": f"{_WORDS}: `ssh key passphrase for deploy@ is <four words>` in a Mattermost export's JSON `message`",
    "bk-borg-keyfile": f"{_BARE}: a borg keyfile's base64 lines under its `BORG_KEY <repository id>` header",
    "wal-bitcoin-wif": f"{_ALONE}: a Bitcoin WIF private key (base58, `K`/`L` and 51 characters) printed by `bitcoin-cli dumpprivkey`",
    "url-pushover-form": f"{_NAME}: Pushover's `--form-string 'user=X'` (the user key; `token=` is redacted), batch 12's `saas-pushover-curl` again",
    "mac-launchd-plist-env": "a Sentry DSN's key in a launchd plist's `<string>` under `SENTRY_DSN` (Sentry says a DSN may be public; the batch counted it); `DB_PASSWORD` is redacted",
    "net-opnsense-api-curl": "OPNsense's `curl -u \"KEY:SECRET\"`, 80 characters each with `+` and `/`: the key half, a pair's user (the secret half is redacted)",
    "chat-rocketchat-hook-url": f"{_URL_KEY}: Rocket.Chat's `/hooks/<id>/<token>` in a user's text",
    "loc-cwd-share-path": "a GVfs mount's `user=DOMAIN%3BX` in the `cwd`: a value after an escaped `;` in a share's key list",
    "chat-telegram-split-entities": f"{_SIBLING}: a Telegram export's text entities, the noun in one string and the value in the next element's `\"text\"`",
    "fx-sql-seed-api-keys": "a SQL `INSERT INTO api_keys (name, key, …) VALUES (…), (…)`: the rows after the first (the first row's key is redacted)",
    "x-sql14-rows-grep": "a SQL `INSERT`'s second row, in grep rows (the first row's password is redacted)",
    "bk-restic-password-command-cwd": "a token-shaped directory name (`rst_<base64url>`) as the whole `cwd`: a path's segment names nothing",
    "x-argv14-netsnmp-createuser": f'{_DIRECTIVE}: net-snmp\'s `createUser NAME SHA "X" AES "Y"`: the passphrases by their place after each algorithm',
}
_UNFLAGGED_13 = {
    "fx-prisma-seed-bcrypt",
    "win-netsh-wlan-key-clear",
    "chat-mattermost-jsonl",
    "mac-launchd-plist-env",
    "chat-rocketchat-hook-url",
    "loc-cwd-share-path",
    "chat-telegram-split-entities",
}


# batch 14 (measured blind on 55126cc), by cause
_LIMITS_14: dict[str, str] = {
    "split-powershell-plus": 'literals joined in code under a variable that names nothing (`$k = "A" + "B"`), the credential\'s name (`X-Api-Key`) only where the next line uses it',
    "split-c-adjacent-literals": "the second of C's adjacent literals after `#define NAME`, continued by a backslash (the first is redacted)",
    "mac-security-dump-keychain": f"{_WORDS}: `security dump-keychain -d`'s `data:` and a quoted passphrase of three words on the next line",
    "mail-gmail-app-password-prose": f"{_WORDS}: `app password: <four groups of four letters>` in prose",
    "chat-irc-weechat-log": "a WeeChat log's message `try the bastion with X`: no credential noun",
    "loc-title-wifi": "a title's `Wifi at the office: X`: Wi-Fi names no credential",
    "pr-th-user": f"{_FOREIGN}: Thai `รหัสผ่านคือX`, written without spaces between words",
    "pr-ar-user": f"{_FOREIGN}: Arabic `كلمة المرور الجديدة هي X`",
    "wal-lnd-macaroon-hex": f"{_ALONE}: an LND macaroon's hex (`0201036c6e64…`) as a whole result",
    "wal-solana-id-json": f"{_ALONE}: a Solana keypair's 64-byte JSON list as a whole result (the second opinion flags it)",
    "ocr-azure-portal-copy": f"{_ALONE}: the Azure portal's `Key 1`, then the key on the next line (the connection string's `AccountKey` is redacted; the second opinion flags the key)",
    "ocr-pdf-spaced-form": f"{_ALONE}: a form's labels (`Online banking PIN`, `Security word`), each value on the line after its label",
    "voip-voicemail-conf-pin": f"{_RECORD}: Asterisk's voicemail.conf `6001 => PIN,Name,email`",
    "mail-postfix-sasl-passwd": f"{_RECORD}: Postfix's `sasl_passwd` `[host]:port user:X` (batch 5's layout again; the SendGrid key on the first line is redacted; the second opinion flags it)",
    "voip-grandstream-pvalues": "Grandstream's P-values: the SIP password as `P34 = X`, a setting known by its number (`P2` under `# Admin password` is redacted)",
    "net-junos-set-user": "Junos `$9$` (a reversible obfuscation) quoted after `authentication-key` in a `set` line (the SNMP community is redacted)",
    "pay-card-fixture-csv": f"{_TABLE}: card numbers in a CSV's `card_number` column",
    "x-key14-mac-key-40": "`macKey = '<40 hex>'`: SHA-1's length (git's object ids) under a name saying key is still read as a digest (a commit under `release_key:` is one)",
    "x-seed14-prose-no-noun": "a 24-word BIP-39 mnemonic in prose with no word near it naming a seed, a wallet, a backup or words: seed phrases are read around those only (a pass over every run of short lower-case words costs the scan of prose a tenth more)",
}
_UNFLAGGED_14 = set(_LIMITS_14) - {
    "split-powershell-plus",
    "wal-solana-id-json",
    "ocr-azure-portal-copy",
    "mail-postfix-sasl-passwd",
}


def _unflagged(limits: dict[str, str], ids: Collection[str]) -> dict[str, str]:
    """The limits of ``ids`` as forms the second opinion does not flag either: by shape it sees
    nothing to flag in them. Every id must be one of the limits (a stale id is an error here,
    not a form silently dropped from the check)."""
    stale = set(ids) - limits.keys()
    assert not stale, f"unflagged ids not among the batch's limits: {sorted(stale)}"
    return {
        k: f"{v}; by shape the second opinion sees nothing to flag"
        for k, v in limits.items()
        if k in ids
    }


@dataclass(frozen=True)
class Batch:
    number: int
    secrets: int
    """Secret forms of the blind batch (the further forms come after them)."""
    benign: int
    limits: dict[str, str]
    """The forms still leaking, each with why."""
    unflagged: dict[str, str] = field(default_factory=dict)
    """The leaking forms the audit's second opinion does not flag either, each with why: their
    exports still say ``findings: 0``."""
    damaged: dict[str, str] = field(default_factory=dict)
    """The look-alikes still changed by the export, each with why."""
    views: int = 5
    """The batch's survival views: 3 (plain, escaped, decoded), 4 (+ HTML references, xxd), 5."""
    opinion_only: bool = False
    """A leaking form's findings are all the second opinion's (batch 3 checks it)."""
    seen_in: tuple[str, ...] = ("text", "planted")
    """Where each secret is checked to be visible to the views; empty: not checked."""

    @property
    def forms(self) -> list[dict[str, Any]]:
        return _FORMS[self.number]


BATCHES: dict[int, Batch] = {
    3: Batch(
        3,
        507,
        69,
        {
            **_LIMITS_3,
            "vendor-razorpay-neutral-json@grep": _LIMITS_3["vendor-razorpay-neutral-json"],
        },
        unflagged={
            "vendor-razorpay-neutral-json": _UNFLAGGED_3_KEY_ID,
            "vendor-razorpay-neutral-json@grep": _UNFLAGGED_3_KEY_ID,
            "key-otpauth-migration": "a value named `data` is data to the second opinion (an image's, encrypted content's)",
        },
        views=3,
        opinion_only=True,
        seen_in=(),
    ),
    4: Batch(
        4,
        107,
        26,
        _LIMITS_4,
        damaged={
            "x-auth-ok-scope": '`auth("reports:read")`: a scope in a call named `auth` reads as a `user:password` pair',
            "x-pgpass-ok-times": "`sha:1234:abcd:ef:0123456789` after another line: a colon record of five fields ending in ten digits reads as a .pgpass line",
        },
        views=4,
        seen_in=("text",),
    ),
    5: Batch(
        5,
        151,
        27,
        _LIMITS_5,
        unflagged={
            k: v
            for k, v in _LIMITS_5.items()
            if k not in {"nb-output-env", "x-ck-requests-jar-set"}
        },
    ),
    6: Batch(
        6,
        190,
        31,
        _LIMITS_6,
        unflagged=_unflagged(
            _LIMITS_6,
            {
                "cli-vault-approle-secret-id",
                "db-pgbouncer-userlist",
                "pkg-gem-push-key",
                "mob-fastlane-match-env",
                "vpn-netsh-key-content",
                "dump-strace-write-auth",
                "enc-py-fromhex",
                "prose-en-pin",
                "x-tabop-space-and-tab",
                "x-keycontent-netsh-de",
            },
        ),
    ),
    7: Batch(
        7,
        272,
        41,
        _LIMITS_7,
        unflagged=_unflagged(_LIMITS_7, {"shape-unicode-letters"}),
        damaged={
            "x-pr-ok-1password": "`the password in 1Password`: the structure reader takes the word after `password in` as a directive's value",
            "x-pos-ok-verify-key": '`nacl.signing.VerifyKey("<64 hex>")`: 64 hex digits in a call named for a key read as an Ed25519 private key\'s seed (a verify key is public)',
        },
    ),
    8: Batch(
        8,
        317,
        42,
        _LIMITS_8,
        unflagged=_unflagged(_LIMITS_8, _UNFLAGGED_8),
        damaged={
            "x-credfile-ok-systemd-set-encrypted": "`ImportCredential=tls.*`: a glob of credentials' names read as the value",
        },
    ),
    9: Batch(
        9,
        309,
        44,
        _LIMITS_9,
        unflagged=_unflagged(_LIMITS_9, _UNFLAGGED_9),
        damaged={
            "ok-cucumber-outline": "an Examples table's `password` column holding the word `wrong`: a letters-only value under a credential's column is the credential (the quoted `\"<password>\"` placeholder is intact since ruleset 83)",
            "x-ok-camel-digits": "`OAuth2Client` (a class's name holding `auth`) read as a credential word, and `ResNet50V2Backbone` two words after it as its generated-looking value",
            "x-ok-pr-models": "`OLMo-2-1124-7B-Instruct` read as a high-entropy value",
        },
    ),
    10: Batch(
        10,
        182,
        0,
        _LIMITS_10,
        unflagged=_unflagged(_LIMITS_10, _UNFLAGGED_10),
    ),
    11: Batch(
        11,
        370,
        61,
        _LIMITS_11,
        unflagged=_unflagged(_LIMITS_11, _UNFLAGGED_11),
        damaged={
            "ok-net-xray-shortid": "REALITY's `shortIds` (given to every client) read as a random value",
            "ok-saas-segment-browser": 'Segment\'s browser write key in `analytics.load("…")` (public in the page)',
            "ok-saas-mixpanel-token-browser": 'Mixpanel\'s project token in `mixpanel.init("…")` (public in the page)',
            "ok-sys-k8s-secret-ref": "`<set to the key 'password' in secret 'pg-app'>`: the Secret's name read as the value",
            "ok-cn-csv-no-password": "`(in 1Password)` in a `password` column read as the value",
            "ok-ci-appveyor-secure": "AppVeyor `secure:` ciphertext (made to be committed) read as a random value",
            "ok-ci-cirrus-encrypted": "Cirrus CI's `ENCRYPTED[…]` ciphertext under a token's name",
            "ok-dns-acme-thumbprint": "an ACME account key's thumbprint (public) under `ACCOUNT_THUMBPRINT=`",
        },
    ),
    12: Batch(12, 177, 0, _LIMITS_12, unflagged=_unflagged(_LIMITS_12, _UNFLAGGED_12)),
    13: Batch(
        13,
        255,
        51,
        _LIMITS_13,
        unflagged=_unflagged(_LIMITS_13, _UNFLAGGED_13),
        damaged={
            "ok-kafka-cluster-id": "`kafka-storage.sh format -t <cluster id>`: a cluster id (22 base64url) after a short option read as its credential",
            "ok-mapbox-public-token": "`mapboxgl.accessToken = 'pk.…'`: a public token under a credential-named property whose body does not begin `eyJ` as Mapbox's do; gitleaks' own `pk.` samples of that form are true positives (23), so the exemption wants the whole format",
            "x-pin14-ok-gpio": "ESPHome's `pin: GPIO23` (a board's pin) read as a code of letters and digits under a PIN's name",
        },
    ),
    14: Batch(
        14,
        134,
        19,
        _LIMITS_14,
        unflagged=_unflagged(_LIMITS_14, _UNFLAGGED_14),
    ),
}

_FORMS: dict[int, list[dict[str, Any]]] = {
    n: json.loads(Path(__file__).with_name(f"heldout_batch_{n}.json").read_text(encoding="utf-8"))
    for n in BATCHES
}


# --- where a form is planted (as its batch's harness plants it) -----------------------------------


def _numbered(text: str) -> str:
    return "\n".join(f"{i}:{line}" for i, line in enumerate(text.split("\n"), 1))


def _planted(form: dict[str, Any]) -> str:
    """The string the form's text becomes where it is planted (its own text for a reasoning
    summary or a title)."""
    text: str = form["text"]
    loc = form["loc"]
    lines = text.split("\n")
    if loc == "read":
        return _numbered(text)
    if loc == "hashline":
        return "[config/app.conf#K7Q2]\n" + _numbered(text)
    if loc == "grep":
        return "\n".join(f"config/app.conf:{i}:{line}" for i, line in enumerate(lines, 1))
    if loc == "diff":
        body = "\n".join("+" + line for line in lines)
        head = "diff --git a/config/app.conf b/config/app.conf\nindex 3f2a1c4..9be01d7 100644\n"
        return f"{head}--- a/config/app.conf\n+++ b/config/app.conf\n@@ -1,0 +1,{len(lines)} @@\n{body}"
    if loc == "patch":
        body = "\n".join("+" + line for line in lines)
        return f"*** Begin Patch\n*** Add File: config/app.conf\n{body}\n*** End Patch"
    if loc == "aborted":
        return '{"command": ' + json.dumps(text)
    return text


_METADATA = {"title": "title", "cwd": "cwd", "meta": "last_command"}
"""The places in the session's metadata, by the entry they fill."""


def _history(form: dict[str, Any]) -> list[dict[str, Any]]:
    loc, text, cid = form["loc"], _planted(form), "call_0"

    def turn(call: dict[str, Any], content: str, ok: bool = True) -> list[dict[str, Any]]:
        return [
            {"Assistant": [{"ToolCall": {"id": cid, **call}}]},
            {"ToolResult": {"id": cid, "ok": ok, "content": content}},
        ]

    if loc == "user":
        return [{"User": [{"Text": text}]}]
    if loc == "reasoning":
        summary = {"content": [{"Text": "Done."}], "reasoning_summary": text}
        return [{"EnrichedAssistant": summary}]
    if loc in _METADATA:
        return [{"Assistant": [{"Text": "ok"}]}]
    if loc == "command":
        return turn({"name": "bash", "arguments": {"command": text}}, "done")
    if loc == "write":
        return turn({"name": "write", "arguments": {"path": "notes.txt", "content": text}}, "ok")
    if loc == "patch":
        return turn({"name": "apply_patch", "arguments": {"input": text}}, "applied 1 file")
    if loc == "aborted":
        usage = {"input_tokens": 10, "output_tokens": 5, "cache_read_tokens": None}
        call = {"id": cid, "name": "bash", "arguments": text}
        aborted = {"content": [{"Text": "Running it."}], "reasoning": "", "tool_calls": [call]}
        return [{"AbortedAssistant": {**aborted, "usage": usage}}]
    if loc in ("read", "hashline"):
        return turn({"name": "read_file", "arguments": {"path": "config/app.conf"}}, text)
    if loc == "grep":
        return turn({"name": "grep", "arguments": {"pattern": "=", "path": "config"}}, text)
    cmd = form.get("cmd", "git diff" if loc == "diff" else "./run.sh")
    return turn({"name": "bash", "arguments": {"command": cmd}}, text, ok=loc != "error")


def exported(history: list[dict[str, Any]], metadata: dict[str, str] | None = None) -> ExportResult:
    """A session of ``history`` (wire records), exported as JSON with everything selected."""
    raw = {
        "schema_version": 2,
        "session_id": "s-1",
        "revision": 1,
        "history": history,
        "provider": {"provider": "openai", "api": "responses", "model": "gpt-5"},
        "compaction": {"completed_compactions": 0, "removed_messages": 0},
        "metadata": metadata or {},
        "prompt_cache_key": "k",
    }
    return export_snapshot(
        decode_snapshot(json.dumps(raw)), Selection.everything(), key=KEY, fmt="json"
    )


def export_form(form: dict[str, Any]) -> ExportResult:
    """The form planted where its batch plants it, in a session exported as JSON."""
    key = _METADATA.get(form["loc"])
    metadata = {key: form["text"]} if key else None
    return exported([{"User": [{"Text": "look"}]}, *_history(form)], metadata)


def _strings(node: object) -> list[str]:
    if isinstance(node, str):
        return [node]
    if isinstance(node, dict):
        return [s for v in node.values() for s in _strings(v)]
    if isinstance(node, list):
        return [s for v in node for s in _strings(v)]
    return []


# --- what survives: plain, escaped, decoded -------------------------------------------------------

_IGNORABLE = re.compile(
    "[\u00ad\u034f\u180e\u200b-\u200f\u202a-\u202e\u2060-\u206f\ufe00-\ufe0f\ufeff]"
)
_B64 = re.compile(r"[A-Za-z0-9+/_\-]{12,}={0,2}")


def _views_3(text: str) -> list[str]:
    out = [text, urllib.parse.unquote(urllib.parse.unquote(text))]
    out.append(unicodedata.normalize("NFKC", _IGNORABLE.sub("", text)))
    out.append(re.sub(r"\\u\{?([0-9A-Fa-f]{2,6})\}?", lambda m: chr(int(m.group(1), 16)), text))
    squeezed = re.sub(r"\s+", "", text)
    blocks = ["".join(b.split()) for b in re.findall(r"(?:^[A-Za-z0-9+/=]{4,}$\n?)+", text, re.M)]
    for m in (m for t in (squeezed, *blocks) for m in _B64.finditer(t)):
        run = m.group(0).rstrip("=").replace("-", "+").replace("_", "/")
        with contextlib.suppress(binascii.Error, ValueError):
            out.append(base64.b64decode(run + "=" * (-len(run) % 4)).decode("latin-1"))
    for m in re.finditer(r"(?:0x[0-9A-Fa-f]{2}\s*,\s*){5,}0x[0-9A-Fa-f]{2}", text):
        out.append(
            bytes(int(v, 16) for v in re.findall(r"0x([0-9A-Fa-f]{2})", m.group(0))).decode(
                "latin-1"
            )
        )
    chars = re.findall(r"'(.)'", text)
    if len(chars) >= 6:
        out.append("".join(chars))
    return out


_XXD_ROW = re.compile(r"^[0-9a-f]{8}: ((?:[0-9a-f]{2,4} ?)+)", re.M)


def _views_4(text: str) -> list[str]:
    out = [html.unescape(text), html.unescape(text.replace("\\u0026", "&"))]  # Go's JSON: \u0026
    rows = _XXD_ROW.findall(text)
    if rows:
        out.append(bytes.fromhex("".join(r.replace(" ", "") for r in rows)).decode("latin-1"))
    return out


_B64_WORD = re.compile(r"[A-Za-z0-9+/]{12,}={0,2}")
_B64_BLOCK = re.compile(r"(?:^[A-Za-z0-9+/=]{8,}$\n?)+", re.M)
_HEX_RUN = re.compile(r"(?:[0-9a-f]{2}){8,}")


def _views_5(text: str) -> list[str]:
    out = _views_4(text)
    out.append(re.sub(r"\\x([0-9a-fA-F]{2})", lambda m: chr(int(m.group(1), 16)), text))
    out.append(re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), text))
    peeled = re.sub(r"^(?:\d+:|\+)", "", text, flags=re.M)
    words = _B64_WORD.findall(peeled) + ["".join(b.split()) for b in _B64_BLOCK.findall(peeled)]
    for word in words:
        with contextlib.suppress(binascii.Error, ValueError):
            out.append(base64.b64decode(word + "=" * (-len(word) % 4)).decode("latin-1"))
    out.extend(bytes.fromhex(h).decode("latin-1") for h in _HEX_RUN.findall(text))
    return out


def _survives(secret: str, strings: list[str]) -> bool:
    escaped = json.dumps(secret)[1:-1]
    return any(secret in view or escaped in view for s in strings for view in _views_3(s))


def left_of(form: dict[str, Any], strings: list[str], views: int = 5) -> list[str]:
    """The secrets of ``form`` that ``strings`` still hold, seen through a batch's views."""
    more = {3: None, 4: _views_4, 5: _views_5}[views]
    extra = [view for s in strings for view in more(s)] if more else []
    return [s for s in form["secrets"] if _survives(s, strings) or _survives(s, extra)]


# --- the checks ------------------------------------------------------------------------------------


def _params(test: str) -> list[Any]:
    out = []
    for batch in BATCHES.values():
        for form in batch.forms:
            if test == "secret" and not form.get("benign"):
                reasons = batch.limits
            elif test == "benign" and form.get("benign"):
                reasons = batch.damaged
            elif test == "flagged" and form["id"] in batch.limits:
                reasons = batch.unflagged
            else:
                continue
            marks = []
            if form["id"] in reasons:
                marks.append(pytest.mark.xfail(strict=True, reason=reasons[form["id"]]))
            out.append(pytest.param(batch, form, id=f"{batch.number}-{form['id']}", marks=marks))
    return out


@pytest.mark.parametrize(("batch", "form"), _params("secret"))
def test_no_secret_of_the_form_survives_its_export(batch: Batch, form: dict[str, Any]) -> None:
    result = export_form(form)
    strings = _strings(json.loads(result.data))
    left = left_of(form, strings, batch.views)
    assert not left, (form["note"], left, max(strings, key=len)[:400])
    assert not result.blocked


@pytest.mark.parametrize(("batch", "form"), _params("benign"))
def test_the_look_alike_comes_out_as_it_went_in(batch: Batch, form: dict[str, Any]) -> None:
    result = export_form(form)
    strings = _strings(json.loads(result.data))
    assert _planted(form) in strings or form["text"] in strings, (
        form["note"],
        max(strings, key=len)[:400],
    )
    assert not result.blocked


@pytest.mark.parametrize(("batch", "form"), _params("flagged"))
def test_a_form_that_still_leaks_is_a_finding_of_the_audit(
    batch: Batch, form: dict[str, Any]
) -> None:
    """The audit's second opinion reads command lines' words and decoded text: a form the
    scanner misses is flagged for review in the receipt, not ``findings: 0``."""
    result = export_form(form)
    assert result.report.findings, form["note"]
    if batch.opinion_only:
        assert all(f.rule.startswith("second-opinion:") for f in result.report.findings)
    assert not result.blocked


@pytest.mark.parametrize(
    "batch", [pytest.param(b, id=str(n)) for n, b in BATCHES.items() if b.seen_in]
)
def test_every_secret_is_visible_in_the_form_as_written(batch: Batch) -> None:
    """A secret the views cannot see in its own form (or in its rows) would count as never leaking."""
    for form in batch.forms:
        seen = [form["text"]] + ([_planted(form)] if "planted" in batch.seen_in else [])
        for secret in form.get("secrets", []):
            assert left_of({"secrets": [secret]}, seen, batch.views), (form["id"], secret)


@pytest.mark.parametrize("batch", [pytest.param(b, id=str(n)) for n, b in BATCHES.items()])
def test_the_batch_is_the_one_measured(batch: Batch) -> None:
    """The blind batch's secret forms and look-alikes, the further forms after them; every
    form named in a reason is one of the batch's."""
    blind = [f for f in batch.forms if f.get("batch") != "extra"]
    assert sum(1 for f in blind if not f.get("benign")) == batch.secrets
    assert sum(1 for f in blind if f.get("benign")) == batch.benign
    ids = {f["id"] for f in batch.forms}
    assert len(ids) == len(batch.forms)
    assert set(batch.limits) | set(batch.damaged) <= ids
    assert set(batch.unflagged) <= set(batch.limits)
