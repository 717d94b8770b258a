"""Prints, as JSON, every message in a Maildir that aiosmtpd's Mailbox
handler filled: its subject, sender, recipients, and each text part by
content type (decoded). The alerts test reads its mail through this, with
Python's own e-mail parser rather than one written to match whocomes.

Usage: python mail_inbox.py MAILDIR
"""
import json
import mailbox
import re
import sys
from email.header import decode_header, make_header


def parts(message):
    found = {}
    for part in message.walk():
        if part.get_content_maintype() == "text":
            found[part.get_content_type()] = part.get_payload(decode=True).decode(
                part.get_content_charset() or "utf-8"
            )
    return found


def inline(message):
    """The parts that are neither text nor containers: their type, their
    Content-ID and how many bytes they decode to."""
    found = []
    for part in message.walk():
        if part.get_content_maintype() not in ("text", "multipart"):
            found.append(
                {
                    "type": part.get_content_type(),
                    "cid": str(part.get("Content-ID", "")),
                    "disposition": str(part.get("Content-Disposition", "")),
                    "bytes": len(part.get_payload(decode=True) or b""),
                }
            )
    return found


def arrival(key):
    """A Maildir name's order of arrival: its second, then the delivering
    process's count (the microseconds in it are not zero-padded, so the
    names themselves do not sort in order)."""
    seconds = key.split(".", 1)[0]
    count = re.search(r"Q(\d+)", key)
    return (int(seconds) if seconds.isdigit() else 0, int(count.group(1)) if count else 0)


def main():
    box = mailbox.Maildir(sys.argv[1], factory=None, create=False)
    messages = []
    for key in sorted(box.keys(), key=arrival):
        message = box.get_message(key)
        messages.append(
            {
                "subject": str(make_header(decode_header(message["subject"]))),
                "from": str(message["from"]),
                "to": str(message["to"]),
                "parts": parts(message),
                "inline": inline(message),
            }
        )
    print(json.dumps(messages))


if __name__ == "__main__":
    main()
