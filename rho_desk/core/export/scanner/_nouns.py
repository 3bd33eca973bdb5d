"""Credential nouns of many languages, as data: what a sentence names a credential with.

The table (``NOUNS``) gives, per language, its words for a password, a passphrase, a PIN, a
token, a secret and a key (an API key, an access key), in their dictionary form, and the
loanwords the language takes (``password``, ``токен``, ``トークン``, ``पासवर्ड``). It is not a list
of forms seen: each language's row has the same six meanings, and what a sentence does to a word
is derived, not listed (``cues``):

* the **stem**: a word of a script with letter case loses its final vowels (or a vowel and ``s``),
  the ending its language inflects (``jelszó`` → ``jelsz`` reads ``jelszava``; ``парола`` →
  ``парол`` reads ``Паролата``; ``şifrə`` → ``şifr`` reads ``şifrəsi``; ``slaptažodis`` →
  ``slaptažod``); a script without case keeps the word whole (Thai, Indic, CJK, Arabic);
* the **spellings**: lower case, capitalized and upper case (bytes fold ASCII only), composed
  and decomposed (NFC, NFD: ``ọ̀`` typed either way).

A noun names nothing alone: ``_sentences`` asks for a value shaped as a credential beside it.
"""

from __future__ import annotations

import unicodedata
from typing import Final

__all__ = ["NOUNS", "SHORT_ASCII", "cues"]

NOUNS: Final[dict[str, tuple[str, ...]]] = {
    # language: password, passphrase, PIN, token, secret, key (and the loanwords it takes)
    "en": (
        "password",
        "passphrase",
        "passcode",
        "passwd",
        "pwd",
        "pw",
        "pin",
        "token",
        "secret",
        "key",
        "credential",
        "creds",
        "login",
        "log in",
        "sign in",
    ),
    "de": (
        "Passwort",
        "Kennwort",
        "Passphrase",
        "Geheimzahl",
        "Token",
        "Geheimnis",
        "Schlüssel",
        "Zugangsdaten",
    ),
    "fr": (
        "mot de passe",
        "phrase secrète",
        "code secret",
        "jeton",
        "secret",
        "clé",
        "clef",
        "identifiants",
    ),
    "es": ("contraseña", "clave", "frase de contraseña", "token", "secreto", "credenciales"),
    "pt": ("senha", "palavra-passe", "chave", "token", "segredo", "credenciais"),
    "it": (
        "password",
        "parola d'ordine",
        "codice segreto",
        "chiave",
        "token",
        "segreto",
        "credenziali",
    ),
    "ca": ("contrasenya", "clau", "testimoni", "secret"),
    "gl": ("contrasinal", "chave", "segredo"),
    "eu": ("pasahitza", "gakoa", "tokena", "sekretua"),
    "nl": ("wachtwoord", "sleutel", "token", "geheim", "pincode"),
    "af": ("wagwoord", "sleutel", "geheim", "token"),
    "da": ("adgangskode", "kodeord", "nøgle", "hemmelighed", "pinkode", "token"),
    "no": ("passord", "nøkkel", "hemmelighet", "pinkode", "token"),
    "sv": ("lösenord", "nyckel", "hemlighet", "pinkod", "token"),
    "is": ("lykilorð", "aðgangsorð", "lykill", "leyndarmál"),
    "fi": ("salasana", "tunnuslause", "avain", "salaisuus", "tokeni"),
    "et": ("parool", "salasõna", "võti", "saladus", "tõend"),
    "lv": ("parole", "atslēga", "noslēpums", "marķieris"),
    "lt": ("slaptažodis", "raktas", "paslaptis", "prieigos raktas", "žetonas"),
    "pl": ("hasło", "klucz", "sekret", "token", "żeton"),
    "cs": ("heslo", "klíč", "tajemství", "token"),
    "sk": ("heslo", "kľúč", "tajomstvo", "token"),
    "sl": ("geslo", "ključ", "skrivnost", "žeton"),
    "hr": ("lozinka", "zaporka", "šifra", "ključ", "tajna", "token"),
    "sr": ("лозинка", "шифра", "кључ", "тајна", "токен", "lozinka", "šifra"),
    "mk": ("лозинка", "клуч", "тајна", "токен"),
    "bg": ("парола", "ключ", "тайна", "токен"),
    "ru": ("пароль", "ключ", "секрет", "токен", "пин-код", "учётные данные"),
    "uk": ("пароль", "гасло", "ключ", "секрет", "токен"),
    "be": ("пароль", "ключ", "сакрэт", "токен"),
    "ro": ("parolă", "parola", "cheie", "secret", "token"),
    "hu": ("jelszó", "jelmondat", "kulcs", "titok", "token", "PIN-kód"),
    "sq": ("fjalëkalim", "çelës", "sekret", "token"),
    "mt": ("password", "kelma sigrieta", "ċavetta", "sigriet"),
    "cy": ("cyfrinair", "allwedd", "cyfrinach", "tocyn"),
    "ga": ("pasfhocal", "eochair", "rún"),
    "el": ("κωδικός", "συνθηματικό", "κλειδί", "μυστικό", "διακριτικό"),
    "tr": ("şifre", "parola", "anahtar", "gizli", "belirteç", "token"),
    "az": ("şifrə", "parol", "açar", "gizli", "token"),
    "uz": ("parol", "kalit", "maxfiy", "token"),
    "kk": ("құпия сөз", "құпиясөз", "кілт", "құпия", "токен"),
    "ky": ("сырсөз", "ачкыч", "купуя", "токен"),
    "tg": ("рамз", "калимаи убур", "калид", "махфӣ", "токен"),
    "mn": ("нууц үг", "түлхүүр", "нууц", "токен"),
    "hy": ("գաղտնաբառ", "բանալի", "գաղտնի", "թոքեն", "տոկեն"),
    "ka": ("პაროლ", "გასაღებ", "საიდუმლო", "ტოკენ"),
    "he": ("סיסמ", "מפתח", "סוד", "טוקן"),
    "ar": ("كلمة المرور", "كلمة السر", "رمز الوصول", "مفتاح", "سري", "توكن", "رمز"),
    "fa": ("رمز عبور", "گذرواژه", "کلید", "توکن", "رمز"),
    "ur": ("پاس ورڈ", "خفیہ", "کلید", "ٹوکن"),
    "ps": ("پټنوم", "پاسورډ", "کیلي"),
    "hi": ("पासवर्ड", "कूटशब्द", "कुंजी", "गुप्त", "टोकन", "पिन"),
    "mr": ("संकेतशब्द", "पासवर्ड", "किल्ली", "गुप्त", "टोकन"),
    "ne": ("पासवर्ड", "पासवर्ड", "साँचो", "गोप्य", "टोकन"),
    "bn": ("পাসওয়ার্ড", "চাবি", "গোপন", "টোকেন"),
    "gu": ("પાસવર્ડ", "ચાવી", "ગુપ્ત", "ટોકન"),
    "pa": ("ਪਾਸਵਰਡ", "ਕੁੰਜੀ", "ਗੁਪਤ", "ਟੋਕਨ"),
    "ta": ("கடவுச்சொல்", "கடவுச்சொ", "சாவி", "ரகசிய", "டோக்கன்"),
    "te": ("పాస్‌వర్డ్", "పాస్వర్డ్", "సంకేతపదం", "కీ", "రహస్య", "టోకెన్"),
    "kn": ("ಪಾಸ್‌ವರ್ಡ್", "ಪಾಸ್ವರ್ಡ್", "ಗುಪ್ತಪದ", "ಕೀಲಿ", "ರಹಸ್ಯ", "ಟೋಕನ್"),
    "ml": ("പാസ്‌വേഡ്", "പാസ്വേഡ്", "രഹസ്യവാക്ക്", "താക്കോൽ", "രഹസ്യ", "ടോക്കൺ"),
    "si": ("මුරපද", "මුර පද", "යතුර", "රහස්", "ටෝකන"),
    "th": ("รหัสผ่าน", "รหัส", "กุญแจ", "คีย์", "ความลับ", "โทเค็น", "โทเคน"),
    "lo": ("ລະຫັດຜ່ານ", "ລະຫັດ", "ກະແຈ", "ຄວາມລັບ", "ໂທເຄັນ"),
    "km": ("ពាក្យសម្ងាត់", "ពាក្យ​សម្ងាត់", "សោ", "សម្ងាត់", "ថូខឹន"),
    "my": ("စကားဝှက်", "လျှို့ဝှက်", "သော့", "တိုကင်"),
    "am": ("የይለፍ ቃል", "ይለፍ ቃል", "ቁልፍ", "ሚስጥር", "ቶከን"),
    "sw": ("nenosiri", "nywila", "ufunguo", "siri", "tokeni"),
    "yo": ("ọ̀rọ̀ìgbaniwọlé", "ọrọigbaniwọle", "ọ̀rọ̀ aṣínà", "kọ́kọ́rọ́", "àṣírí"),
    "ha": ("kalmar sirri", "kalmar wucewa", "mabuɗi", "sirri"),
    "ig": ("okwuntughe", "mkpịsị ugodi", "ihe nzuzo"),
    "zu": ("iphasiwedi", "igama lokungena", "ukhiye", "imfihlo"),
    "xh": ("iphasiwedi", "igama lokugqitha", "isitshixo"),
    "so": ("furaha sirta", "ereyga sirta", "furaha"),
    "ms": ("kata laluan", "kata kunci", "kunci", "rahsia", "token"),
    "id": ("kata sandi", "kata kunci", "sandi", "kunci", "rahasia", "token"),
    "tl": ("password", "susi", "lihim", "token"),
    "vi": ("mật khẩu", "khóa", "khoá", "bí mật", "mã thông báo", "mã pin", "token"),
    "zh": ("密码", "密碼", "口令", "密钥", "密鑰", "秘钥", "令牌", "访问令牌", "凭据", "憑證"),
    "ja": ("パスワード", "暗証番号", "合言葉", "キー", "鍵", "秘密", "トークン", "シークレット"),
    "ko": ("비밀번호", "암호", "패스워드", "키", "비밀", "토큰", "시크릿"),
}
"""Per language (ISO 639-1), its credential nouns; the English row is the loanwords' too."""

_VOWELS: Final = frozenset(
    "aeiouyáéíóúýàèìòùâêîôûäëïöüőűåøæəıãõ"
    "аеёиоуыэюяіїєьъ"  # Cyrillic: the soft and hard signs end a stem as a vowel does
    "αεηιουωάέήίόύώ"
)
_CASED_SCRIPTS: Final = ("LATIN", "CYRILLIC", "GREEK", "ARMENIAN")
SHORT_ASCII: Final = 4
"""An ASCII noun of this many letters or fewer is a whole word only (``pin``, not ``spinning``)."""


def _cased(word: str) -> bool:
    """Every letter of ``word`` is of a script with letter case."""
    return all(unicodedata.name(c, "").startswith(_CASED_SCRIPTS) for c in word if c.isalpha())


def _stem(word: str) -> str:
    """The part of ``word`` its language does not inflect: its last word's final vowels (or a
    vowel and ``s``) dropped, when four letters stay; a word of a caseless script as it is."""
    if not _cased(word) or len(word) < 5:
        return word
    end = len(word)
    if word[end - 1] == "s" and word[end - 2] in _VOWELS:
        end -= 2
    while end > 0 and word[end - 1] in _VOWELS and end > 4:
        end -= 1
    return word[:end] if end >= 4 else word


def _spellings(stem: str) -> set[str]:
    out = set()
    for form in (stem.lower(), stem[:1].upper() + stem[1:].lower(), stem.upper()):
        out.add(unicodedata.normalize("NFC", form))
        out.add(unicodedata.normalize("NFD", form))
    return out


def cues() -> tuple[tuple[bytes, ...], frozenset[bytes], frozenset[bytes]]:
    """Every noun of ``NOUNS`` as the bytes a sentence holds, longest first (ASCII ones in lower
    case: the gate is caseless in ASCII), in every spelling; the short ASCII nouns that are whole
    words (``pin``, ``key``: not the start of ``spinning`` or ``keyboard``); and the ASCII stems
    that are no word of any row (``jelsz``, ``rakt``: an ending always follows)."""
    found: set[bytes] = set()
    whole: set[bytes] = set()
    words: set[bytes] = set()
    for row in NOUNS.values():
        for word in row:
            stem = _stem(word)
            for form in _spellings(stem):
                raw = form.encode()
                raw = raw.lower() if raw.isascii() else raw
                found.add(raw)
                if stem == word:
                    words.add(raw)
                    if raw.isascii() and len(raw) <= SHORT_ASCII:
                        whole.add(raw)
    stems = {c for c in found if c.isascii() and c not in words}
    return tuple(sorted(found, key=lambda b: (-len(b), b))), frozenset(whole), frozenset(stems)
