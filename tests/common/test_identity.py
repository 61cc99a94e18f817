"""Identity between the hub's processes: signed for one audience, short-lived, never trusted unsigned."""

from __future__ import annotations

import time

import pytest

from ai_llm.common import identity
from ai_llm.common.identity import IdentityError, Viewer, check_visibility, issue, verify, viewer_from

KEY = "a-very-secret-hub-token-42"


def test_a_signed_identity_is_read_back_by_its_audience_only() -> None:
    token = issue(KEY, "internal_rag", "u-1", "kim", ("영업",))
    assert token is not None
    viewer = verify(KEY, token, "internal_rag")
    assert (viewer.user_id, viewer.username, viewer.teams, viewer.everything) == ("u-1", "kim", ("영업",), False)
    with pytest.raises(IdentityError, match="not 'web_research'"):
        verify(KEY, token, "web_research")
    with pytest.raises(IdentityError, match="signature"):
        verify("another-hub-token-entirely", token, "internal_rag")


def test_tampered_and_expired_identities_are_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    token = issue(KEY, "internal_rag", "u-1", "kim")
    assert token is not None
    head, _, tail = token.partition(".")
    forged = identity._b64(identity._unb64(head).replace(b'"u-1"', b'"u-2"')) + "." + tail
    with pytest.raises(IdentityError, match="signature"):
        verify(KEY, forged, "internal_rag")
    with pytest.raises(IdentityError, match="malformed"):
        verify(KEY, "not a token", "internal_rag")
    monkeypatch.setattr(time, "time", lambda: 10**12)
    with pytest.raises(IdentityError, match="expired"):
        verify(KEY, token, "internal_rag")


def test_an_unsigned_or_refused_claim_acts_for_the_service() -> None:
    assert viewer_from(KEY, "internal_rag", None) == Viewer.service()
    assert viewer_from(KEY, "internal_rag", "garbage.garbage") == Viewer.service()
    assert viewer_from(None, "internal_rag", None).everything  # no credential configured: no people
    assert issue(None, "internal_rag", "u-1", "kim") is None


@pytest.mark.parametrize(("viewer", "owner", "visibility", "may"), [
    (Viewer(user_id="u-1"), "u-1", "private", True),
    (Viewer(user_id="u-2"), "u-1", "private", False),
    (Viewer(user_id="u-2", teams=("영업",)), "u-1", "team:영업", True),
    (Viewer(user_id="u-2", teams=("개발",)), "u-1", "team:영업", False),
    (Viewer.service(), "u-1", "private", False),
    (Viewer.service(), "u-1", "everyone", True),
    (Viewer.all_documents(), "u-1", "private", True),
])
def test_who_may_read_what(viewer: Viewer, owner: str, visibility: str, may: bool) -> None:
    assert viewer.may_read(owner, visibility) is may


def test_a_person_chooses_among_their_own_teams() -> None:
    assert check_visibility(None) == "private" and check_visibility("everyone") == "everyone"
    assert check_visibility("team:영업", ("영업",)) == "team:영업"
    with pytest.raises(ValueError, match="not a member"):
        check_visibility("team:인사", ("영업",))
    with pytest.raises(ValueError, match="private, everyone"):
        check_visibility("public")
