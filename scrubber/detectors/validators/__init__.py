"""Validators for pattern matches, mostly thin wrappers over well-kept libraries.

Each family has a module of its own: ``identifiers`` (cards, IBANs, SSNs, bank numbers,
passports, licences, e-mail), ``phone``, ``ip``, ``dates`` and ``secrets``. Rule files name a
validator by its key in ``VALIDATORS``; ``base.Validator`` says what a validator returns.
"""

from __future__ import annotations

from scrubber.detectors.validators import dates, identifiers, ip, phone, secrets
from scrubber.detectors.validators.base import Validator

__all__ = ["VALIDATORS", "Validator"]

VALIDATORS: dict[str, Validator] = {
    "luhn_card": identifiers.luhn_card,
    "luhn_any": identifiers.luhn_any,
    "iban": identifiers.iban,
    "us_ssn": identifiers.us_ssn,
    "aba_routing": identifiers.aba_routing,
    "phone": phone.phone,
    "phone_formatted": phone.phone_formatted,
    "phone_national": phone.phone_national,
    "phone_grouped": phone.phone_grouped,
    "bank_account": identifiers.bank_account,
    "ipv4": ip.ipv4,
    "ipv6": ip.ipv6,
    "date": dates.date,
    "secret_value": secrets.secret_value,
    "passport": identifiers.passport,
    "secret_token": secrets.secret_token,
    "credential": secrets.credential,
    "prose_password": secrets.prose_password,
    "typed_password": secrets.typed_password,
    "basic_credentials": secrets.basic_credentials,
    "aws_secret": secrets.aws_secret,
    "phone_urlencoded": phone.phone_urlencoded,
    "driver_license": identifiers.driver_license,
    "email": identifiers.email,
}
