package mimeparse

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/emersion/go-message"
)

// leafPart is one non-multipart part of a message.
type leafPart struct {
	entity    *message.Entity
	mediaType string
	params    map[string]string
	// isBody is a text/plain or text/html part that is no attachment.
	isBody      bool
	filename    string
	contentID   string
	disposition string
}

// walkLeaves calls fn for each leaf of entity in order, up to maxParts. A
// message/rfc822 part (a forwarded message) is one leaf: an attachment.
func walkLeaves(entity *message.Entity, fn func(leafPart) error) error {
	n := 0
	err := entity.Walk(func(_ []int, part *message.Entity, err error) error {
		if err != nil && !message.IsUnknownCharset(err) && !message.IsUnknownEncoding(err) {
			return err
		}
		mediaType, params, _ := part.Header.ContentType()
		mediaType = strings.ToLower(mediaType)
		if strings.HasPrefix(mediaType, "multipart/") {
			return nil
		}
		if n++; n > maxParts {
			return fmt.Errorf("more than %d parts: %w", maxParts, errStop)
		}
		if mediaType == "" {
			mediaType = "text/plain"
		}
		disp, dispParams, _ := part.Header.ContentDisposition()
		leaf := leafPart{entity: part, mediaType: mediaType, params: params, disposition: strings.ToLower(disp),
			filename: dispParams["filename"], contentID: strings.Trim(part.Header.Get("Content-Id"), "<> ")}
		if leaf.filename == "" {
			leaf.filename = params["name"]
		}
		leaf.isBody = (mediaType == "text/plain" || mediaType == "text/html") && leaf.disposition != "attachment" && leaf.filename == ""
		return fn(leaf)
	})
	return err
}

// attachment describes the leaf as the id-th attachment of size bytes.
func (l leafPart) attachment(id int, size int64) Attachment {
	contentType := l.mediaType
	if strings.HasPrefix(contentType, "text/") {
		// Text parts are served decoded to UTF-8 (go-message converts them).
		contentType += "; charset=utf-8"
	}
	return Attachment{ID: fmt.Sprint(id), Filename: l.filename, ContentType: contentType, ContentID: l.contentID, Size: size}
}

// ErrNoAttachment is Open's answer for an id the message does not have.
var ErrNoAttachment = errors.New("mimeparse: no such attachment")

// Open finds attachment id in raw again and returns its description and
// decoded bytes, the same walk as Parse, so ids agree.
func Open(raw []byte, id string) (*Attachment, []byte, error) {
	entity, err := message.Read(bytes.NewReader(raw))
	if entity == nil {
		return nil, nil, fmt.Errorf("mimeparse: read message: %w", err)
	}
	var found *Attachment
	var content []byte
	textBody, htmlBody := false, false
	count := 0
	err = walkLeaves(entity, func(leaf leafPart) error {
		if leaf.isBody && leaf.mediaType == "text/plain" && !textBody {
			textBody = true
			return nil
		}
		if leaf.isBody && leaf.mediaType == "text/html" && !htmlBody {
			htmlBody = true
			return nil
		}
		count++
		if fmt.Sprint(count) != id {
			return nil
		}
		// A body that breaks off (bad base64) gives what was decoded
		// before, as Parse counted it.
		body, _ := io.ReadAll(leaf.entity.Body)
		a := leaf.attachment(count, int64(len(body)))
		found, content = &a, body
		return errStop
	})
	if found != nil {
		return found, content, nil
	}
	if err != nil && !errors.Is(err, errStop) {
		return nil, nil, fmt.Errorf("mimeparse: walk: %w", err)
	}
	return nil, nil, ErrNoAttachment
}
