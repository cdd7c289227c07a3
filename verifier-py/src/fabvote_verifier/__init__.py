"""fabvote_verifier: an independent verifier of fabvote election records,
written from docs/RECORD.md and docs/PROTOCOL.md.  It shares no code with
the Go verifier and never runs it."""

from .verify import Unreadable, verify_record

__all__ = ["verify_record", "Unreadable"]
__version__ = "1.0.0"
