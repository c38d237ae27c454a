package cluster

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/raft"
)

// memberStream is raft's stream layer over TCP with every connection
// authenticated (MemberAuth) before raft sees it. Accepted connections
// are authenticated off the accept loop, so a peer that connects and
// stalls delays nobody else; at most maxPendingHandshakes do so at once.
type memberStream struct {
	ln        net.Listener
	advertise net.Addr
	auth      MemberAuth
	log       *slog.Logger

	conns  chan net.Conn
	closed chan struct{}
	once   sync.Once
	// open are the accepted connections not yet closed: Close closes
	// them too, so that raft's handlers blocked reading a peer that went
	// silent return.
	mu      sync.Mutex
	open    map[net.Conn]struct{}
	pending chan struct{}
	// rejected counts the connections that failed authentication.
	rejected atomic.Int64
}

// NewMemberTransport is raft's transport for a member listening on bind
// (host:port; port 0 picks one: the transport's LocalAddr says which),
// every connection authenticated by auth. log receives a line for each
// connection refused (nil: slog.Default()); raftLog raft's transport
// logs (nil: standard error).
func NewMemberTransport(bind string, auth MemberAuth, log *slog.Logger, raftLog io.Writer) (*raft.NetworkTransport, error) {
	tr, _, err := memberTransport(bind, auth, nil, log, raftLog)
	return tr, err
}

// memberTransport is NewMemberTransport dialling each member at the
// address peers gives for it, when it gives one (nil: raft's
// configuration's address).
func memberTransport(bind string, auth MemberAuth, peers raft.ServerAddressProvider, log *slog.Logger, raftLog io.Writer) (*raft.NetworkTransport, *memberStream, error) {
	s, err := newMemberStream(bind, auth, log)
	if err != nil {
		return nil, nil, err
	}
	return raft.NewNetworkTransportWithConfig(&raft.NetworkTransportConfig{
		Stream:                s,
		ServerAddressProvider: peers,
		MaxPool:               3,
		Timeout:               10 * time.Second,
		Logger:                newRaftLogger(raftLog),
	}), s, nil
}

// peerAddresses maps a member's id to the address this member was given
// for it (Config.Peers), which may differ from the one in raft's
// configuration (the address the bootstrapping member listed, or
// AddVoter's): each member reaches the others through addresses of its
// own (a proxy, NAT). A member not listed is dialled at the
// configuration's address.
type peerAddresses struct {
	peers []Peer
	raft  atomic.Pointer[raft.Raft] // set once raft runs
}

func (p *peerAddresses) ServerAddr(id raft.ServerID) (raft.ServerAddress, error) {
	for _, m := range p.peers {
		if m.ID == string(id) {
			return raft.ServerAddress(m.Address), nil
		}
	}
	// raft falls back on the configuration's address after an error, but
	// logs a warning on every message: answer with that address instead.
	if r := p.raft.Load(); r != nil {
		for _, s := range r.GetConfiguration().Configuration().Servers {
			if s.ID == id {
				return s.Address, nil
			}
		}
	}
	return "", fmt.Errorf("cluster: no address for member %s", id)
}

// newMemberStream listens on bind. The address must name a host the
// others reach: raft tells them the listener's address.
func newMemberStream(bind string, auth MemberAuth, log *slog.Logger) (*memberStream, error) {
	if err := auth.check(); err != nil {
		return nil, err
	}
	host, _, err := net.SplitHostPort(bind)
	if err != nil {
		return nil, fmt.Errorf("cluster: raft address %q: %w", bind, err)
	}
	if ip := net.ParseIP(host); host == "" || ip != nil && ip.IsUnspecified() {
		return nil, fmt.Errorf("cluster: raft address %q must name the host the other members reach, not every interface", bind)
	}
	ln, err := net.Listen("tcp", bind)
	if err != nil {
		return nil, err
	}
	if log == nil {
		log = slog.Default()
	}
	s := &memberStream{ln: ln, advertise: ln.Addr(), auth: auth, log: log,
		conns: make(chan net.Conn), closed: make(chan struct{}), pending: make(chan struct{}, maxPendingHandshakes)}
	go s.acceptLoop()
	return s, nil
}

func (s *memberStream) acceptLoop() {
	for {
		c, err := s.ln.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			select {
			case <-s.closed:
				return
			case <-time.After(10 * time.Millisecond): // a transient error (too many files): don't spin
			}
			continue
		}
		select {
		case s.pending <- struct{}{}:
		default:
			s.refuse(c, errors.New("too many connections authenticating"))
			continue
		}
		go func() {
			defer func() { <-s.pending }()
			ac, err := s.auth.authenticate(c, true)
			if err != nil {
				s.refuse(c, err)
				return
			}
			tc := s.track(ac)
			select {
			case s.conns <- tc:
			case <-s.closed:
				_ = tc.Close()
			}
		}()
	}
}

// refuse closes a connection that did not authenticate, saying why.
func (s *memberStream) refuse(c net.Conn, why error) {
	s.rejected.Add(1)
	s.log.Warn("cluster: refused a connection from a peer", "remote", c.RemoteAddr().String(), "error", why)
	_ = c.Close()
}

// Accept returns the next authenticated connection.
func (s *memberStream) Accept() (net.Conn, error) {
	select {
	case c := <-s.conns:
		return c, nil
	case <-s.closed:
		return nil, net.ErrClosed
	}
}

func (s *memberStream) Close() error {
	var err error
	s.once.Do(func() {
		close(s.closed)
		err = s.ln.Close()
		s.mu.Lock()
		open := make([]net.Conn, 0, len(s.open))
		for c := range s.open {
			open = append(open, c)
		}
		s.mu.Unlock()
		for _, c := range open { // each leaves the set as it closes
			_ = c.Close()
		}
	})
	return err
}

// track records an accepted connection until it is closed.
func (s *memberStream) track(c net.Conn) net.Conn {
	t := &trackedConn{Conn: c, s: s}
	s.mu.Lock()
	if s.open == nil {
		s.open = map[net.Conn]struct{}{}
	}
	s.open[t] = struct{}{}
	s.mu.Unlock()
	return t
}

// trackedConn is an accepted connection that leaves its stream's set
// when closed.
type trackedConn struct {
	net.Conn
	s    *memberStream
	once sync.Once
}

func (t *trackedConn) Close() error {
	var err error
	t.once.Do(func() {
		t.s.mu.Lock()
		delete(t.s.open, t)
		t.s.mu.Unlock()
		err = t.Conn.Close()
	})
	return err
}

func (s *memberStream) Addr() net.Addr { return s.advertise }

// Dial connects to a member and authenticates the connection.
func (s *memberStream) Dial(address raft.ServerAddress, timeout time.Duration) (net.Conn, error) {
	c, err := net.DialTimeout("tcp", string(address), timeout)
	if err != nil {
		return nil, err
	}
	ac, err := s.auth.authenticate(c, false)
	if err != nil {
		_ = c.Close()
		return nil, err
	}
	return ac, nil
}
