package app

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/google/uuid"

	"github.com/carteiro/carteiro"
	"github.com/carteiro/carteiro/internal/store"
)

// AudienceInput is POST and PUT /audiences after decoding; nil is absent,
// DescriptionSet tells null (clear) from absent.
type AudienceInput struct {
	Name           *string
	Description    *string
	DescriptionSet bool
	Active         *bool
}

// Page is a limit/offset request (4.4).
type Page struct{ Limit, Offset int }

// CreateAudience makes a contact list (4.4, D41).
func (a *App) CreateAudience(ctx context.Context, p *Principal, in AudienceInput) (*carteiro.Audience, error) {
	if err := p.requireFull(); err != nil {
		return nil, err
	}
	if in.Name == nil {
		return nil, carteiro.Invalid("name", "required")
	}
	now := a.clock.Now()
	aud := &carteiro.Audience{ID: uuid.Must(uuid.NewV7()).String(), OrgID: p.Org.ID, Name: *in.Name, Description: in.Description,
		Active: true, CreatedAt: now, UpdatedAt: now}
	if in.Active != nil {
		aud.Active = *in.Active
	}
	if err := carteiro.ValidateAudience(aud); err != nil {
		return nil, err
	}
	return aud, storeErr(a.store.CreateAudience(ctx, aud))
}

// ListAudiences returns one page of audiences and their total.
func (a *App) ListAudiences(ctx context.Context, p *Principal, page Page) ([]*carteiro.Audience, int64, error) {
	if err := p.requireFull(); err != nil {
		return nil, 0, err
	}
	list, total, err := a.store.ListAudiences(ctx, p.Org.ID, page.Limit, page.Offset)
	return list, total, storeErr(err)
}

// GetAudience returns one audience.
func (a *App) GetAudience(ctx context.Context, p *Principal, id string) (*carteiro.Audience, error) {
	if err := p.requireFull(); err != nil {
		return nil, err
	}
	aud, err := a.store.Audience(ctx, p.Org.ID, id)
	return aud, storeErr(err)
}

// UpdateAudience changes name, description and active; at least one.
func (a *App) UpdateAudience(ctx context.Context, p *Principal, id string, in AudienceInput) (*carteiro.Audience, error) {
	aud, err := a.GetAudience(ctx, p, id)
	if err != nil {
		return nil, err
	}
	if in.Name == nil && !in.DescriptionSet && in.Active == nil {
		return nil, carteiro.Invalid("body", "required")
	}
	if in.Name != nil {
		aud.Name = *in.Name
	}
	if in.DescriptionSet {
		aud.Description = in.Description
	}
	if in.Active != nil {
		aud.Active = *in.Active
	}
	if err := carteiro.ValidateAudience(aud); err != nil {
		return nil, err
	}
	aud.UpdatedAt = a.clock.Now()
	return aud, storeErr(a.store.UpdateAudience(ctx, aud))
}

// DeleteAudience removes an audience with its contacts, for good.
func (a *App) DeleteAudience(ctx context.Context, p *Principal, id string) error {
	if err := p.requireFull(); err != nil {
		return err
	}
	return storeErr(a.store.DeleteAudience(ctx, p.Org.ID, id))
}

// ContactInput is one contact of POST, PUT or bulk; nil is absent and the
// *Set flags tell null from absent.
type ContactInput struct {
	Email        *string
	FirstName    *string
	FirstNameSet bool
	LastName     *string
	LastNameSet  bool
	Metadata     []byte // the JSON value as sent; nil when null or absent
	MetadataSet  bool
}

// newContact validates a contact of audience aud; prefix names the field
// path of the item (for bulk).
func (a *App) newContact(aud *carteiro.Audience, in ContactInput, prefix string) (*carteiro.Contact, error) {
	if in.Email == nil {
		return nil, carteiro.Invalid(prefix+"email", "required")
	}
	email, _, err := carteiro.ContactEmail(prefix+"email", *in.Email)
	if err != nil {
		return nil, err
	}
	if err := carteiro.ValidateContactNames(prefix, in.FirstName, in.LastName); err != nil {
		return nil, err
	}
	meta, err := contactMetadata(prefix, in.Metadata)
	if err != nil {
		return nil, err
	}
	return &carteiro.Contact{ID: uuid.Must(uuid.NewV7()).String(), AudienceID: aud.ID, OrgID: aud.OrgID, Email: email,
		FirstName: in.FirstName, LastName: in.LastName, Metadata: meta, CreatedAt: a.clock.Now()}, nil
}

// contactMetadata checks the metadata as sent (nil for null or absent).
func contactMetadata(prefix string, raw []byte) (carteiro.ContactMetadata, error) {
	if raw == nil {
		return nil, nil
	}
	return carteiro.NewContactMetadata(prefix+"metadata", raw)
}

// CreateContact adds one contact; an address already in the audience is a
// 409 (D41).
func (a *App) CreateContact(ctx context.Context, p *Principal, audienceID string, in ContactInput) (*carteiro.Contact, error) {
	aud, err := a.GetAudience(ctx, p, audienceID)
	if err != nil {
		return nil, err
	}
	c, err := a.newContact(aud, in, "")
	if err != nil {
		return nil, err
	}
	err = a.store.InTx(ctx, func(tx *store.Tx) error { return tx.InsertContact(ctx, c) })
	if errors.Is(err, store.ErrConflict) {
		// D11: the 409 names the contact that has the address.
		id, lookupErr := a.store.ContactIDByEmail(ctx, p.Org.ID, aud.ID, c.Email)
		if lookupErr != nil {
			id = ""
		}
		return nil, carteiro.Conflict(id)
	}
	return c, storeErr(err)
}

// BulkResult answers POST /audiences/:id/contacts/bulk (4.4).
type BulkResult struct {
	Inserted, Skipped int
	Errors            []BulkError
}

// BulkError names a contact that was not inserted and why: invalid_email
// or duplicate (D41).
type BulkError struct {
	Email  string
	Reason string
}

// ImportContacts inserts every valid contact not yet in the audience, in
// one transaction, and reports the others (D41). Up to 10,000 per call.
//
// The items come from a source read as the import goes: the database writes
// one part of the contacts while the next part is read and checked, on the
// other core. An item that refuses the whole request (a bad field, the
// 10,001st, none at all) rolls back what was written.
func (a *App) ImportContacts(ctx context.Context, p *Principal, audienceID string, items ContactSource) (*BulkResult, error) {
	aud, err := a.GetAudience(ctx, p, audienceID)
	if err != nil {
		return nil, err
	}
	parts := make(chan []*carteiro.Contact, 2)
	// refused is set before parts is closed; a panic in the checks leaves
	// it set, so the parts written roll back.
	refused := errors.New("app: import: the checks stopped")
	var inserted map[string]bool
	wrote := make(chan error, 1)
	go func() {
		var err error
		defer func() {
			if p := recover(); p != nil {
				err = fmt.Errorf("app: import: %v", p)
			}
			for range parts { // a transaction that did not begin read none
			}
			wrote <- err
		}()
		err = a.store.InTx(ctx, func(tx *store.Tx) error {
			imp := tx.ImportContacts(aud.ID, importPart)
			var err error
			for part := range parts {
				if err == nil {
					err = imp.Add(ctx, part)
				}
			}
			if err == nil {
				err = refused
			}
			if err == nil {
				err = imp.Finish(ctx)
			}
			inserted = imp.Inserted
			return err
		})
	}()
	var res *checkedImport
	var valid []*carteiro.Contact
	func() {
		defer close(parts)
		res, valid, refused = a.checkContacts(aud, items, parts)
	}()
	err = <-wrote
	if refused != nil {
		return nil, refused
	}
	if err != nil {
		return nil, storeErr(err)
	}
	for _, c := range valid {
		if !inserted[strings.ToLower(c.Email)] {
			res.Errors = append(res.Errors, BulkError{Email: c.Email, Reason: "duplicate"})
		}
	}
	res.Inserted = len(inserted)
	res.Skipped = res.items - res.Inserted
	return &res.BulkResult, nil
}

// ContactSource gives the items of a bulk import in order; ok is false
// after the last, and an error (a bad field of an item) refuses the whole
// import.
type ContactSource interface {
	Next() (in ContactInput, ok bool, err error)
}

// importPart is how many checked contacts go to the database at a time.
const importPart = 1000

// checkedImport is a bulk import's report as the checks build it.
type checkedImport struct {
	BulkResult
	items int // read from the source
}

// checkContacts checks the items of a bulk import in order and sends the
// valid contacts, without the repeats of an address in the batch, to parts
// in groups of importPart. Invalid addresses and repeats are reported in
// res; a bad field, more than MaxBulkContacts items or none refuse the
// whole request (err).
func (a *App) checkContacts(aud *carteiro.Audience, items ContactSource, parts chan<- []*carteiro.Contact) (res *checkedImport, valid []*carteiro.Contact, err error) {
	res = &checkedImport{BulkResult: BulkResult{Errors: []BulkError{}}}
	valid = make([]*carteiro.Contact, 0, importPart)
	seen := make(map[string]bool, importPart)
	sent := 0
	for ; ; res.items++ {
		in, ok, err := items.Next()
		if err != nil {
			return nil, nil, err
		}
		if !ok {
			break
		}
		if res.items == carteiro.MaxBulkContacts {
			return nil, nil, carteiro.Invalid("contacts", "too_many")
		}
		c, err := a.newContact(aud, in, "contacts["+strconv.Itoa(res.items)+"].")
		var ce *carteiro.Error
		switch {
		case errors.As(err, &ce) && strings.HasSuffix(ce.Field, ".email"):
			email := ""
			if in.Email != nil {
				email = *in.Email
			}
			res.Errors = append(res.Errors, BulkError{Email: email, Reason: "invalid_email"})
			continue
		case err != nil:
			// Bad names or metadata are the caller's mistake, not data to
			// skip: the whole request is refused and nothing changes.
			return nil, nil, err
		}
		key := strings.ToLower(c.Email)
		if seen[key] {
			res.Errors = append(res.Errors, BulkError{Email: c.Email, Reason: "duplicate"})
			continue
		}
		seen[key] = true
		valid = append(valid, c)
		if len(valid)-sent == importPart {
			parts <- valid[sent:] // later appends write after it
			sent = len(valid)
		}
	}
	if res.items == 0 {
		return nil, nil, carteiro.Invalid("contacts", "required")
	}
	if sent < len(valid) {
		parts <- valid[sent:]
	}
	return res, valid, nil
}

// ListContacts returns one page of an audience's contacts and its total.
func (a *App) ListContacts(ctx context.Context, p *Principal, audienceID string, page Page) ([]*carteiro.Contact, int64, error) {
	aud, err := a.GetAudience(ctx, p, audienceID)
	if err != nil {
		return nil, 0, err
	}
	cs, err := a.store.ListContacts(ctx, aud.ID, page.Limit, page.Offset)
	return cs, aud.ContactsCount, storeErr(err)
}

// UpdateContact changes names and metadata; at least one field.
func (a *App) UpdateContact(ctx context.Context, p *Principal, audienceID, id string, in ContactInput) (*carteiro.Contact, error) {
	if err := p.requireFull(); err != nil {
		return nil, err
	}
	c, err := a.store.Contact(ctx, p.Org.ID, audienceID, id)
	if err != nil {
		return nil, storeErr(err)
	}
	if in.Email != nil {
		return nil, carteiro.Invalid("email", "unknown_field")
	}
	if !in.FirstNameSet && !in.LastNameSet && !in.MetadataSet {
		return nil, carteiro.Invalid("body", "required")
	}
	if in.FirstNameSet {
		c.FirstName = in.FirstName
	}
	if in.LastNameSet {
		c.LastName = in.LastName
	}
	if in.MetadataSet {
		if c.Metadata, err = contactMetadata("", in.Metadata); err != nil {
			return nil, err
		}
	}
	if err := carteiro.ValidateContactNames("", c.FirstName, c.LastName); err != nil {
		return nil, err
	}
	return c, storeErr(a.store.UpdateContact(ctx, c))
}

// DeleteContact removes a contact.
func (a *App) DeleteContact(ctx context.Context, p *Principal, audienceID, id string) error {
	if err := p.requireFull(); err != nil {
		return err
	}
	return storeErr(a.store.InTx(ctx, func(tx *store.Tx) error { return tx.DeleteContact(ctx, p.Org.ID, audienceID, id) }))
}
