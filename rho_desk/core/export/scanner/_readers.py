"""The keyword passes of every reader of the scanner, in the order ``SecretScanner`` runs them.

Each reader holds its own passes: the keyword rules (``_rules``), Basic credentials wherever
they stand (``_basic``), the credential grammar
(``_grammar``), URLs (``_urls``), logged statements (``_statements``), command lines
(``_commands``), prose (``_prose``, ``_sentences``), codes (``_codes``), generated values
(``_generated``), names read from their values (``_named``), transcripts (``_transcripts``), key
material (``_material``), records (``_records``) and seed phrases (``_seeds``). This module lists them once: a reader is
added here, and the scan driver
(``_secrets``) builds its gate and runs its passes from the list, in its order (the gate's rules
are numbered by it).
"""

from __future__ import annotations

from ._basic import basic_passes
from ._codes import code_passes
from ._commands import command_passes
from ._generated import generated_passes
from ._grammar import grammar_passes
from ._material import material_passes
from ._named import named_passes
from ._prose import prose_passes
from ._records import record_passes
from ._rules import Pass, keyword_passes
from ._seeds import seed_passes
from ._sentences import sentence_passes
from ._statements import statement_passes
from ._transcripts import transcript_passes
from ._urls import url_passes

__all__ = ["reader_passes"]


def reader_passes() -> tuple[Pass, ...]:
    """Every keyword pass, the keyword rules' first, then each reader's."""
    return (
        *keyword_passes(),
        *basic_passes(),
        *grammar_passes(),
        *url_passes(),
        *statement_passes(),
        *command_passes(),
        *prose_passes(),
        *code_passes(),
        *sentence_passes(),
        *generated_passes(),
        *named_passes(),
        *transcript_passes(),
        *material_passes(),
        *record_passes(),
        *seed_passes(),
    )
