package fakes

import (
	"context"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/ports"
)

// Uploads is an in-memory ports.UploadStore and ports.UploadInventory
// that keeps the real stores' rules (test/storetest.RunUploadStore holds
// it to them): names from domain.FileName, never replaced, bad credit
// numbers refused.
type Uploads struct {
	mu          sync.Mutex
	files       map[string]stored
	quarantined map[string]stored
	// Fail makes Save fail; Delay makes it slow.
	Fail  error
	Delay time.Duration
	Clock ports.Clock
	// FailOn, when set, is asked before each Quarantine, RemoveQuarantined,
	// RemoveLeftover and Exists (op is the method's name): an error it
	// returns is that call's.
	FailOn func(op, name string) error
}

type stored struct {
	data []byte
	at   time.Time
	temp bool
}

var (
	_ ports.UploadStore     = (*Uploads)(nil)
	_ ports.UploadInventory = (*Uploads)(nil)
)

// NewUploads returns an empty store whose files are dated by clock.
func NewUploads(clock ports.Clock) *Uploads {
	return &Uploads{files: map[string]stored{}, quarantined: map[string]stored{}, Clock: clock}
}

// Save keeps the content under the first free name.
func (u *Uploads) Save(ctx context.Context, credit string, at time.Time, f *domain.File) (string, error) {
	if !domain.ValidCreditNumber(credit) {
		return "", fmt.Errorf("refusing file name for credit number %q", credit)
	}
	time.Sleep(u.Delay)
	if err := ctx.Err(); err != nil {
		return "", err
	}
	data, err := io.ReadAll(f.Reader())
	if err != nil {
		return "", err
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.Fail != nil {
		return "", u.Fail
	}
	for i := 0; ; i++ {
		name := domain.FileName(credit, at.Add(time.Duration(i)*time.Millisecond), f.Ext)
		if _, ok := u.files[name]; !ok {
			u.files[name] = stored{data: data, at: u.Clock.Now()}
			return name, nil
		}
	}
}

// PutLeftover stores an unfinished write, as a crash leaves one.
func (u *Uploads) PutLeftover(name string, at time.Time) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.files[name] = stored{at: at, temp: true}
}

// PutFile stores a published file written at at, with no row behind it.
func (u *Uploads) PutFile(name string, data []byte, at time.Time) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.files[name] = stored{data: data, at: at}
}

// Data returns a published file's content.
func (u *Uploads) Data(name string) ([]byte, bool) {
	u.mu.Lock()
	defer u.mu.Unlock()
	s, ok := u.files[name]
	return s.data, ok && !s.temp
}

// Remove deletes a file.
func (u *Uploads) Remove(_ context.Context, name string) error {
	u.mu.Lock()
	defer u.mu.Unlock()
	delete(u.files, name)
	return nil
}

// Check answers.
func (u *Uploads) Check(context.Context) error { return nil }

// Walk lists every published file (domain.IsUploadName) and leftover.
func (u *Uploads) Walk(_ context.Context, fn func(ports.StoredObject) error) error {
	u.mu.Lock()
	var list []ports.StoredObject
	for n, s := range u.files {
		if s.temp || domain.IsUploadName(n) {
			list = append(list, ports.StoredObject{Name: n, ModTime: s.at, Temp: s.temp})
		}
	}
	u.mu.Unlock()
	for _, o := range list {
		if err := fn(o); err != nil {
			return err
		}
	}
	return nil
}

// Exists reports whether a published file is there.
func (u *Uploads) Exists(_ context.Context, name string) (bool, error) {
	if err := u.failOn("Exists", name); err != nil {
		return false, err
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	s, ok := u.files[name]
	return ok && !s.temp, nil
}

// RemoveLeftover deletes a leftover.
func (u *Uploads) RemoveLeftover(_ context.Context, o ports.StoredObject) error {
	if err := u.failOn("RemoveLeftover", o.Name); err != nil {
		return err
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	if s, ok := u.files[o.Name]; !ok || !s.temp {
		return fmt.Errorf("%s is not a leftover", o.Name)
	}
	delete(u.files, o.Name)
	return nil
}

// Count returns the number of published files.
func (u *Uploads) Count() int {
	u.mu.Lock()
	defer u.mu.Unlock()
	n := 0
	for _, s := range u.files {
		if !s.temp {
			n++
		}
	}
	return n
}

func (u *Uploads) failOn(op, name string) error {
	if u.FailOn == nil {
		return nil
	}
	return u.FailOn(op, name)
}

func badName(name string) error {
	if domain.ValidUploadName(name) {
		return nil
	}
	return domain.NewError(domain.ErrInvalidInput, "invalid_file_name", fmt.Sprintf("%q is not an upload name", name))
}

// Quarantine moves a published file into quarantine, dated by the clock.
func (u *Uploads) Quarantine(_ context.Context, name string) error {
	if err := badName(name); err != nil {
		return err
	}
	if err := u.failOn("Quarantine", name); err != nil {
		return err
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	s, ok := u.files[name]
	if !ok || s.temp {
		return domain.NewError(domain.ErrNotFound, "not_found", name+" is not published")
	}
	if q, ok := u.quarantined[name]; ok && string(q.data) != string(s.data) {
		return fmt.Errorf("another %s is in quarantine", name)
	}
	u.quarantined[name] = stored{data: s.data, at: u.Clock.Now()}
	delete(u.files, name)
	return nil
}

// WalkQuarantine lists the quarantined files.
func (u *Uploads) WalkQuarantine(_ context.Context, fn func(ports.StoredObject) error) error {
	u.mu.Lock()
	var list []ports.StoredObject
	for n, s := range u.quarantined {
		list = append(list, ports.StoredObject{Name: n, ModTime: s.at})
	}
	u.mu.Unlock()
	for _, o := range list {
		if err := fn(o); err != nil {
			return err
		}
	}
	return nil
}

// Unquarantine moves a quarantined file back, never over a published one.
func (u *Uploads) Unquarantine(_ context.Context, name string) error {
	if err := badName(name); err != nil {
		return err
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	q, ok := u.quarantined[name]
	if !ok {
		return domain.NewError(domain.ErrNotFound, "not_found", name+" is not in quarantine")
	}
	if f, ok := u.files[name]; ok {
		if string(f.data) != string(q.data) {
			return domain.NewError(domain.ErrConflict, "file_exists", name+" is published")
		}
		delete(u.quarantined, name)
		return nil
	}
	u.files[name] = q
	delete(u.quarantined, name)
	return nil
}

// RemoveQuarantined deletes a quarantined file.
func (u *Uploads) RemoveQuarantined(_ context.Context, name string) error {
	if err := badName(name); err != nil {
		return err
	}
	if err := u.failOn("RemoveQuarantined", name); err != nil {
		return err
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	delete(u.quarantined, name)
	return nil
}

// QuarantinedData returns a quarantined file's content.
func (u *Uploads) QuarantinedData(name string) ([]byte, bool) {
	u.mu.Lock()
	defer u.mu.Unlock()
	s, ok := u.quarantined[name]
	return s.data, ok
}
