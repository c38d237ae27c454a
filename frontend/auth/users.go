package auth

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/quiverdb/quiver/engine"
)

// The built-in roles (docs/security.md has the table). A role of another
// name gives nothing server-wide: only what grants give it on graphs
// other than the default (checkRole, docs/graphs.md).
var roles = map[string]engine.Privilege{
	"admin":  engine.PrivAll,
	"editor": engine.PrivRead | engine.PrivWrite,
	"reader": engine.PrivRead,
}

var roleNames = []string{"admin", "editor", "reader"}

const maxUserName = 64

// checkUserName accepts 1..64 characters of [A-Za-z0-9_.@-].
func checkUserName(name string) error {
	if name == "" || len(name) > maxUserName {
		return invalidParam("a user name has 1 to %d characters", maxUserName)
	}
	for i := 0; i < len(name); i++ {
		if !nameByte(name[i]) {
			return invalidParam("a user name has only the characters A-Z, a-z, 0-9, _ . @ and -")
		}
	}
	return nil
}

func nameByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
		c == '_' || c == '.' || c == '@' || c == '-'
}

// sanitize makes an attempted user name safe for the audit trail: at most
// 64 bytes, unusual characters replaced.
func sanitize(name string) string {
	if len(name) > maxUserName {
		name = name[:maxUserName] + "…"
	}
	return strings.Map(func(r rune) rune {
		if r < 128 && nameByte(byte(r)) || r == '…' {
			return r
		}
		return '?'
	}, name)
}

// checkRoles validates and normalises a role list: known names, no
// duplicates, at least one.
func checkRoles(rs []string) ([]string, error) {
	if len(rs) == 0 {
		return nil, invalidParam("a user has at least one role (%s)", strings.Join(roleNames, ", "))
	}
	out := make([]string, 0, len(rs))
	for _, r := range rs {
		if err := checkRole(r); err != nil {
			return nil, err
		}
		if !slices.Contains(out, r) {
			out = append(out, r)
		}
	}
	sort.Strings(out)
	return out, nil
}

// checkRole accepts a built-in role, or a role of the operator's own
// naming (a letter, then letters, digits or underscores, at most 64):
// such a role gives nothing server-wide, only what grants give it on
// graphs other than the default (docs/graphs.md).
func checkRole(r string) error {
	if _, ok := roles[r]; ok {
		return nil
	}
	if !engine.ValidRoleName(r) {
		if len(r) > maxUserName {
			r = r[:maxUserName] + "…"
		}
		return invalidParam("invalid role %q: the built-in roles are %s; a role of your own is a letter, then letters, digits or underscores (docs/graphs.md)", r, strings.Join(roleNames, ", "))
	}
	return nil
}

func privileges(rs []string) engine.Privilege {
	var p engine.Privilege
	for _, r := range rs {
		p |= roles[r]
	}
	return p
}

// principal builds the principal of u authenticated by method.
func principal(u *userRecord, method, addr, sid, cred string) *engine.Principal {
	return &engine.Principal{Name: u.Name, Roles: slices.Clone(u.Roles), Privileges: privileges(u.Roles),
		Address: addr, Method: method, Session: sid, Credential: cred, Attributes: u.attributes()}
}

func genCredential(gen uint64) string { return "gen:" + strconv.FormatUint(gen, 10) }

// user returns the user named name as the index has it now.
func (s *Service) user(name string) *userRecord {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.mu.ix.users[name]
}

func errNoUser(name string) error {
	return engine.NewError(codeNoObject, catNoObject, "there is no user %q", sanitize(name))
}

// createUser adds a user.
func (s *Service) createUser(ctx context.Context, name, pw string, rs []string) (*userRecord, error) {
	if err := checkUserName(name); err != nil {
		return nil, err
	}
	if err := checkPassword(pw); err != nil {
		return nil, err
	}
	rs, err := checkRoles(rs)
	if err != nil {
		return nil, err
	}
	if s.user(name) != nil { // before the hash: a cheap refusal
		return nil, engine.NewError(codeExists, catExists, "the user %q already exists", name)
	}
	h, err := s.hash.hash(ctx, pw)
	if err != nil {
		return nil, internal(err)
	}
	s.write.Lock()
	defer s.write.Unlock()
	if s.user(name) != nil {
		return nil, engine.NewError(codeExists, catExists, "the user %q already exists", name)
	}
	u := &userRecord{Name: name, Roles: rs, Hash: h, Gen: 1, Created: s.now().UTC()}
	var b batch
	b.putUser(u)
	if err := s.commitLocked(ctx, &b); err != nil {
		return nil, internal(err)
	}
	return u, nil
}

// createFirstUser adds a user unless there is a user already, checked
// in the commit that stores it; created says whether it did.
func (s *Service) createFirstUser(ctx context.Context, name, pw string, rs []string) (created bool, err error) {
	if err := checkPassword(pw); err != nil {
		return false, err
	}
	h, err := s.hash.hash(ctx, pw)
	if err != nil {
		return false, internal(err)
	}
	s.write.Lock()
	defer s.write.Unlock()
	u := &userRecord{Name: name, Roles: rs, Hash: h, Gen: 1, Created: s.now().UTC()}
	var b batch
	b.putUser(u)
	created, err = s.cfg.DB.SystemPutIfAbsent(ctx, userPrefix, b.recs)
	if err != nil {
		return false, internal(fmt.Errorf("auth: cannot store the security records: %w", err))
	}
	s.reload(b.keys())
	return created, nil
}

// adminsLocked counts the users with the admin role.
func (s *Service) adminsLocked() int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	n := 0
	for _, u := range s.mu.ix.users {
		if slices.Contains(u.Roles, "admin") {
			n++
		}
	}
	return n
}

// dropUser deletes a user with its sessions and API keys.
func (s *Service) dropUser(ctx context.Context, name string) error {
	s.write.Lock()
	defer s.write.Unlock()
	u := s.user(name)
	if u == nil {
		return errNoUser(name)
	}
	if slices.Contains(u.Roles, "admin") && s.adminsLocked() == 1 {
		return invalidParam("cannot drop %q: it is the last admin", name)
	}
	var b batch
	b.del(userPrefix + name)
	s.mu.RLock()
	for _, ss := range s.mu.ix.userSessions(name) {
		b.delSession(ss)
	}
	for id, k := range s.mu.ix.keys {
		if k.User == name {
			b.del(keyPrefix + id)
		}
	}
	s.mu.RUnlock()
	if err := s.commitLocked(ctx, &b); err != nil {
		return internal(err)
	}
	return nil
}

// setPassword replaces a user's password and bumps its generation, which
// ends its token sessions and cached password checks. API keys stay:
// they are separate credentials, revoked on their own.
func (s *Service) setPassword(ctx context.Context, name, pw string) error {
	if err := checkPassword(pw); err != nil {
		return err
	}
	if s.user(name) == nil {
		return errNoUser(name)
	}
	h, err := s.hash.hash(ctx, pw)
	if err != nil {
		return internal(err)
	}
	s.write.Lock()
	defer s.write.Unlock()
	old := s.user(name)
	if old == nil {
		return errNoUser(name)
	}
	u := *old
	u.Hash, u.Gen = h, old.Gen+1
	var b batch
	b.putUser(&u)
	s.mu.RLock()
	for _, ss := range s.mu.ix.userSessions(name) {
		b.delSession(ss)
	}
	s.mu.RUnlock()
	if err := s.commitLocked(ctx, &b); err != nil {
		return internal(err)
	}
	return nil
}

// changeRole grants (add) or revokes a role.
func (s *Service) changeRole(ctx context.Context, name, role string, add bool) (*userRecord, error) {
	if err := checkRole(role); err != nil {
		return nil, err
	}
	s.write.Lock()
	defer s.write.Unlock()
	old := s.user(name)
	if old == nil {
		return nil, errNoUser(name)
	}
	u := *old
	has := slices.Contains(old.Roles, role)
	switch {
	case add && has, !add && !has:
		return old, nil
	case add:
		u.Roles = append(slices.Clone(old.Roles), role)
		sort.Strings(u.Roles)
	default:
		if len(old.Roles) == 1 {
			return nil, invalidParam("cannot remove %q's only role: a user has at least one", name)
		}
		if role == "admin" && s.adminsLocked() == 1 {
			return nil, invalidParam("cannot remove the admin role of %q: it is the last admin", name)
		}
		u.Roles = slices.DeleteFunc(slices.Clone(old.Roles), func(r string) bool { return r == role })
	}
	var b batch
	b.putUser(&u)
	if err := s.commitLocked(ctx, &b); err != nil {
		return nil, internal(err)
	}
	return &u, nil
}

func sortUsers(us []*userRecord) {
	sort.Slice(us, func(i, j int) bool { return us[i].Name < us[j].Name })
}
