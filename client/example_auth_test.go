package client_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/quiverdb/quiver/client"
)

func ExampleHTTPClient_Login() {
	url, stop := exampleAuthServer("s3cret-admin") // a server started with --auth-enabled
	defer stop()
	c := client.NewHTTP(url)
	ctx := context.Background()

	_, err := c.Query(ctx, "RETURN 1 AS x", nil)
	var e *client.Error
	if errors.As(err, &e) {
		fmt.Println("without credentials:", e.Status, e.Code)
	}
	// Login keeps the access token for the client's next requests.
	tok, err := c.Login(ctx, "admin", "s3cret-admin")
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := c.Query(ctx, "CALL dbms.security.currentUser()", nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("as", res.Map(0)["username"], "with a", tok.TokenType, "token")
	// Before the access token expires (tok.ExpiresAt), trade the refresh
	// token for a new pair; the old refresh token is spent.
	if tok, err = c.Refresh(ctx, tok.RefreshToken); err != nil {
		fmt.Println(err)
		return
	}
	if err := c.Logout(ctx); err != nil { // ends the session: both tokens stop working
		fmt.Println(err)
		return
	}
	// Output:
	// without credentials: 401 08001
	// as admin with a Bearer token
}
