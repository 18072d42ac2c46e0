// Answers to OAuth discovery probes. A client given no token tries OAuth (RFC 9728 / RFC 8414
// metadata, then RFC 7591 registration at /register) and otherwise shows only "registration
// rejected (HTTP 404)". anchorfs takes bearer tokens, not OAuth: say so where the client shows it.

const HOW = "anchorfs takes a bearer token, not OAuth: send the header " +
  '"Authorization: Bearer TOKEN" with every request, using your client\'s header option (Claude ' +
  'Code: claude mcp add --transport http NAME URL --header "Authorization: Bearer TOKEN"; ' +
  'Cursor and others: "headers": {"Authorization": "Bearer TOKEN"}). The token is in the ' +
  "--token-file, or in STATE_DIR/http-token, whose path the server prints when it starts.";

/** The answer to an OAuth probe, or undefined when `pathname` is not one. */
export function answerOAuthProbe(pathname: string): Response | undefined {
  if (pathname === "/register") {
    // RFC 7591 §3.2.2's error shape: the TS SDK client shows error_description as the reason
    // registration failed, and does not retry this code (it retries invalid_client).
    return Response.json(
      { error: "invalid_client_metadata", error_description: HOW },
      { status: 400, headers: { "Cache-Control": "no-store" } },
    );
  }
  if (
    pathname.startsWith("/.well-known/oauth-") ||
    pathname.startsWith("/.well-known/openid-configuration")
  ) {
    // 404 is what clients take as "no OAuth metadata here": they go on to /register (above)
    // instead of failing on metadata they cannot parse. The body is for people probing by hand.
    return Response.json({ error: "not_found", error_description: HOW }, { status: 404 });
  }
  return undefined;
}
