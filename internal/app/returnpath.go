package app

import (
	"encoding/binary"
	"strings"

	"github.com/google/uuid"

	"github.com/carteiro/carteiro"
)

// returnPathPurpose binds the signed token of a per-recipient return path
// (D65); the older per-email tokens were signed for "bounce".
const returnPathPurpose = "return-path"

// returnPathPrefix starts the local part of every return path (D31, D55).
const returnPathPrefix = "bounces+"

// maxLocalPart is RFC 5321's limit on a local part, in octets.
const maxLocalPart = 64

// returnPathFor is the address bounces of recipient rcpt of e come back to
// (D65): bounces+<token>@<bounce host or bounces.<sending domain>>, where
// the token names the email and that recipient. Each recipient gets its
// own transaction with its own return path, so a report that reaches one
// can only be about that recipient.
func (a *App) returnPathFor(e *carteiro.Email, rcpt *carteiro.Recipient) string {
	host := a.cfg.BounceHost
	if e.DomainID != "" {
		host = "bounces." + carteiro.DomainOf(e.From.Email)
	}
	return returnPathPrefix + a.box.SignCompact(returnPathPurpose, returnPathPayload(e.ID, rcpt.Position)) + "@" + host
}

// returnPathPayload is the recipient's position (2 bytes) then the email
// id: its 16 bytes when it is a UUID (always, for emails Carteiro made),
// else its text. Binary keeps the local part at 8 + 48 octets, within 64.
func returnPathPayload(emailID string, position int) []byte {
	payload := binary.BigEndian.AppendUint16(make([]byte, 0, 18), uint16(position))
	if id, err := uuid.Parse(emailID); err == nil {
		return append(payload, id[:]...)
	}
	return append(payload, emailID...)
}

// returnPathToken is what a bounces+ address says, once its signature is
// checked: the email, and the recipient's position when the token names
// one (position -1 for a token of the older per-email kind, which binds no
// recipient).
type returnPathToken struct {
	emailID  string
	position int
}

// parseReturnPath reads the token of a bounces+ address (or local part),
// in any letter case; ok is false for anything else, a forged or altered
// token included.
func (a *App) parseReturnPath(address string) (returnPathToken, bool) {
	local := address
	if at := strings.LastIndexByte(address, '@'); at >= 0 {
		local = address[:at]
	}
	if len(local) <= len(returnPathPrefix) || !strings.EqualFold(local[:len(returnPathPrefix)], returnPathPrefix) {
		return returnPathToken{}, false
	}
	token := local[len(returnPathPrefix):]
	if strings.Contains(token, ".") {
		// Before D65 a return path named the email alone (base64url, a
		// dot between payload and MAC); mail sent then may still bounce.
		raw, ok := a.box.Verify("bounce", token)
		if !ok {
			return returnPathToken{}, false
		}
		return returnPathToken{emailID: emailIDFromBytes(raw), position: -1}, true
	}
	raw, ok := a.box.VerifyCompact(returnPathPurpose, token)
	if !ok || len(raw) < 3 {
		return returnPathToken{}, false
	}
	return returnPathToken{emailID: emailIDFromBytes(raw[2:]), position: int(binary.BigEndian.Uint16(raw))}, true
}

// emailIDFromBytes reverses returnPathPayload's encoding of an id.
func emailIDFromBytes(raw []byte) string {
	if id, err := uuid.FromBytes(raw); err == nil {
		return id.String()
	}
	return string(raw)
}
