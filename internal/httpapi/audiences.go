package httpapi

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/carteiro/carteiro"
	"github.com/carteiro/carteiro/internal/app"
)

type audienceJSON struct {
	ID            string    `json:"id"`
	Name          string    `json:"name"`
	Description   *string   `json:"description"`
	Active        bool      `json:"active"`
	ContactsCount int64     `json:"contactsCount"`
	CreatedAt     time.Time `json:"createdAt"`
	UpdatedAt     time.Time `json:"updatedAt"`
}

func toAudienceJSON(a *carteiro.Audience) audienceJSON {
	return audienceJSON{ID: a.ID, Name: a.Name, Description: a.Description, Active: a.Active, ContactsCount: a.ContactsCount,
		CreatedAt: a.CreatedAt, UpdatedAt: a.UpdatedAt}
}

type contactJSON struct {
	ID        string          `json:"id"`
	Email     string          `json:"email"`
	FirstName *string         `json:"firstName"`
	LastName  *string         `json:"lastName"`
	Metadata  json.RawMessage `json:"metadata"`
	CreatedAt time.Time       `json:"createdAt"`
}

func toContactJSON(c *carteiro.Contact) contactJSON {
	return contactJSON{ID: c.ID, Email: c.Email, FirstName: c.FirstName, LastName: c.LastName, Metadata: c.Metadata.JSON(), CreatedAt: c.CreatedAt}
}

// pageParams reads limit and offset with their defaults and maximum (4.4, 8).
func pageParams(q url.Values, def, max int) (app.Page, error) {
	page := app.Page{Limit: def}
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > max {
			return page, carteiro.Invalid("limit", "out_of_range")
		}
		page.Limit = n
	}
	if v := q.Get("offset"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return page, carteiro.Invalid("offset", "out_of_range")
		}
		page.Offset = n
	}
	return page, nil
}

func decodeAudience(raw []byte) (app.AudienceInput, error) {
	var b struct {
		Name        *string         `json:"name"`
		Description json.RawMessage `json:"description"`
		Active      *bool           `json:"active"`
	}
	if err := DecodeJSON(raw, &b, false); err != nil {
		return app.AudienceInput{}, err
	}
	in := app.AudienceInput{Name: b.Name, Active: b.Active}
	var err error
	in.Description, in.DescriptionSet, err = nullableString("description", b.Description)
	return in, err
}

type contactBody struct {
	Email     *string         `json:"email"`
	FirstName json.RawMessage `json:"firstName"`
	LastName  json.RawMessage `json:"lastName"`
	Metadata  json.RawMessage `json:"metadata"`
}

func (b contactBody) input(prefix string) (app.ContactInput, error) {
	in := app.ContactInput{Email: b.Email}
	var err error
	if in.FirstName, in.FirstNameSet, err = nullableString(prefix+"firstName", b.FirstName); err != nil {
		return in, err
	}
	if in.LastName, in.LastNameSet, err = nullableString(prefix+"lastName", b.LastName); err != nil {
		return in, err
	}
	if len(b.Metadata) > 0 {
		in.MetadataSet = true
		if !isNull(b.Metadata) {
			in.Metadata = b.Metadata // checked, as an object within the size limit, by the app
		}
	}
	return in, nil
}

func (s *Server) createAudience(w http.ResponseWriter, r *http.Request) {
	body, err := readBody(r)
	if err == nil {
		var in app.AudienceInput
		if in, err = decodeAudience(body); err == nil {
			var a *carteiro.Audience
			if a, err = s.app.CreateAudience(r.Context(), principalOf(r.Context()), in); err == nil {
				writeJSON(w, http.StatusCreated, toAudienceJSON(a))
				return
			}
		}
	}
	s.writeError(w, r, err)
}

func (s *Server) listAudiences(w http.ResponseWriter, r *http.Request) {
	page, err := pageParams(r.URL.Query(), carteiro.DefaultAudiencePage, carteiro.MaxAudiencePage)
	if err == nil {
		var list []*carteiro.Audience
		var total int64
		if list, total, err = s.app.ListAudiences(r.Context(), principalOf(r.Context()), page); err == nil {
			writeJSON(w, http.StatusOK, map[string]any{"audiences": mapAll(list, toAudienceJSON), "total": total})
			return
		}
	}
	s.writeError(w, r, err)
}

func (s *Server) getAudience(w http.ResponseWriter, r *http.Request) {
	a, err := s.app.GetAudience(r.Context(), principalOf(r.Context()), r.PathValue("id"))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, toAudienceJSON(a))
}

func (s *Server) updateAudience(w http.ResponseWriter, r *http.Request) {
	body, err := readBody(r)
	if err == nil {
		var in app.AudienceInput
		if in, err = decodeAudience(body); err == nil {
			var a *carteiro.Audience
			if a, err = s.app.UpdateAudience(r.Context(), principalOf(r.Context()), r.PathValue("id"), in); err == nil {
				writeJSON(w, http.StatusOK, map[string]string{"id": a.ID})
				return
			}
		}
	}
	s.writeError(w, r, err)
}

func (s *Server) deleteAudience(w http.ResponseWriter, r *http.Request) {
	if err := s.app.DeleteAudience(r.Context(), principalOf(r.Context()), r.PathValue("id")); err != nil {
		s.writeError(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (s *Server) createContact(w http.ResponseWriter, r *http.Request) {
	var b contactBody
	err := s.decode(r, &b, false)
	if err == nil {
		var in app.ContactInput
		if in, err = b.input(""); err == nil {
			var c *carteiro.Contact
			if c, err = s.app.CreateContact(r.Context(), principalOf(r.Context()), r.PathValue("id"), in); err == nil {
				writeJSON(w, http.StatusCreated, toContactJSON(c))
				return
			}
		}
	}
	s.writeError(w, r, err)
}

func (s *Server) importContacts(w http.ResponseWriter, r *http.Request) {
	// The whole body's syntax is checked first (a 400 comes before
	// anything else); its items are decoded one by one as the import reads
	// them (contactStream).
	var b struct {
		Contacts json.RawMessage `json:"contacts"`
	}
	err := s.decode(r, &b, false)
	var items *contactStream
	if err == nil {
		items, err = newContactStream(b.Contacts)
	}
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	res, err := s.app.ImportContacts(r.Context(), principalOf(r.Context()), r.PathValue("id"), items)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	type bulkErrorJSON struct {
		Email  string `json:"email"`
		Reason string `json:"reason"`
	}
	errs := make([]bulkErrorJSON, len(res.Errors))
	for i, e := range res.Errors {
		errs[i] = bulkErrorJSON(e)
	}
	writeJSON(w, http.StatusOK, map[string]any{"inserted": res.Inserted, "skipped": res.Skipped, "errors": errs})
}

func (s *Server) listContacts(w http.ResponseWriter, r *http.Request) {
	page, err := pageParams(r.URL.Query(), carteiro.DefaultContactPage, carteiro.MaxContactPage)
	if err == nil {
		var list []*carteiro.Contact
		var total int64
		if list, total, err = s.app.ListContacts(r.Context(), principalOf(r.Context()), r.PathValue("id"), page); err == nil {
			writeJSON(w, http.StatusOK, map[string]any{"contacts": mapAll(list, toContactJSON), "total": total})
			return
		}
	}
	s.writeError(w, r, err)
}

func (s *Server) updateContact(w http.ResponseWriter, r *http.Request) {
	var b contactBody
	err := s.decode(r, &b, false)
	if err == nil {
		var in app.ContactInput
		if in, err = b.input(""); err == nil {
			var c *carteiro.Contact
			if c, err = s.app.UpdateContact(r.Context(), principalOf(r.Context()), r.PathValue("id"), r.PathValue("contactId"), in); err == nil {
				writeJSON(w, http.StatusOK, map[string]string{"id": c.ID})
				return
			}
		}
	}
	s.writeError(w, r, err)
}

func (s *Server) deleteContact(w http.ResponseWriter, r *http.Request) {
	if err := s.app.DeleteContact(r.Context(), principalOf(r.Context()), r.PathValue("id"), r.PathValue("contactId")); err != nil {
		s.writeError(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}
