package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
)

// peerApplied is cluster.Config.MemberApplied for quiver serve: it asks
// member id's GET /api/v1/status (its --peer-http address) for its
// applied index. raft does not expose the leader's view of its
// followers, and this is the index the member itself reports. A member
// without an address, or that does not answer within the caller's
// deadline, is an error: dbms.cluster.overview() shows it as unknown.
func peerApplied(peerHTTP map[string]string) func(ctx context.Context, id string) (uint64, error) {
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	return func(ctx context.Context, id string) (uint64, error) {
		base, ok := peerHTTP[id]
		if !ok {
			return 0, fmt.Errorf("no client address for member %s (--peer-http)", id)
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/api/v1/status", nil)
		if err != nil {
			return 0, err
		}
		resp, err := client.Do(req)
		if err != nil {
			return 0, err
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return 0, fmt.Errorf("status of member %s: %s", id, resp.Status)
		}
		var st struct {
			Cluster *struct {
				MemberID string  `json:"member_id"`
				Applied  *uint64 `json:"applied_index"`
			} `json:"cluster"`
		}
		if err := json.NewDecoder(resp.Body).Decode(&st); err != nil {
			return 0, fmt.Errorf("status of member %s: %w", id, err)
		}
		// Another member at that address (a configuration gone stale)
		// says nothing of this one.
		if st.Cluster == nil || st.Cluster.Applied == nil || st.Cluster.MemberID != id {
			return 0, fmt.Errorf("%s does not answer as member %s", base, id)
		}
		return *st.Cluster.Applied, nil
	}
}
