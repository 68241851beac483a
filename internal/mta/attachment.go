package mta

import (
	"mime"
	"path"
	"strconv"
	"strings"

	"github.com/carteiro/carteiro"
)

// defaultContentType is used when an attachment's type is absent or
// unparsable and its extension says nothing.
const defaultContentType = "application/octet-stream"

// attachmentPart builds the base64 leaf of attachment i: Content-Type with a
// name parameter, Content-Disposition with a filename (RFC 2231 for
// non-ASCII names; both parameters since mail clients differ in which one
// they read) and, for inline parts, Content-ID <cid>.
func attachmentPart(a *carteiro.Attachment, i int) (*mimePart, error) {
	what := "attachment " + strconv.Itoa(i)
	for _, v := range []string{a.Filename, a.ContentType, a.Disposition, a.CID} {
		if err := checkValue(what, v); err != nil {
			return nil, err
		}
	}
	disposition := "attachment"
	if strings.EqualFold(a.Disposition, "inline") {
		disposition = "inline"
	}

	contentType := mediaType(a.ContentType, a.Filename)
	dispositionValue := disposition
	if a.Filename != "" {
		contentType += "; " + strings.Join(nameParams("name", a.Filename), "; ")
		dispositionValue += "; " + strings.Join(nameParams("filename", a.Filename), "; ")
	}
	part := &mimePart{
		contentType: contentType,
		headers: [][2]string{
			{"Content-Transfer-Encoding", "base64"},
			{"Content-Disposition", dispositionValue},
		},
		body: base64Body(a.Content),
	}
	if a.CID != "" {
		if strings.ContainsAny(a.CID, "<> \t") || hasControl(a.CID) {
			return nil, invalidf("%s content id %q has angle brackets, spaces or control characters", what, a.CID)
		}
		part.headers = append(part.headers, [2]string{"Content-ID", "<" + a.CID + ">"})
	} else if disposition == "inline" {
		return nil, invalidf("%s is inline without a content id", what)
	}
	return part, nil
}

// nameParams formats a file name parameter. A name outside ASCII is written
// twice (D70): as RFC 2231 (filename*= with percent-encoded UTF-8), which current readers
// prefer, and as a quoted RFC 2047 encoded word, the only form older
// Outlook reads (it shows "ATT00001" for a name given only the RFC 2231
// way).
func nameParams(name, value string) []string {
	params := formatParam(name, value)
	if isPlainASCII(value) {
		return params
	}
	return append([]string{name + "=" + quoteParam(mime.BEncoding.Encode("utf-8", value))}, params...)
}

// mediaType returns the Content-Type of an attachment without its name
// parameter: the declared type when it parses (its other parameters kept,
// such as text/calendar's method), else the type of the filename's
// extension, else application/octet-stream.
func mediaType(declared, filename string) string {
	if declared != "" {
		if mt, params, err := mime.ParseMediaType(declared); err == nil && strings.Contains(mt, "/") {
			delete(params, "name")
			if formatted := mime.FormatMediaType(mt, params); formatted != "" {
				return formatted
			}
			return mt
		}
	}
	if ext := path.Ext(filename); ext != "" {
		if mt, _, err := mime.ParseMediaType(mime.TypeByExtension(ext)); err == nil {
			return mt
		}
	}
	return defaultContentType
}
