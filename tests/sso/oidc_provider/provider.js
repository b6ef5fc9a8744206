// A real OpenID Provider for the sign-in tests: oidc-provider with its development login
// form (any password), the accounts and clients below, and the signing keys the tests give
// it (so that they can also forge tokens the provider could have signed).
//
//   node provider.js CONFIG.json     CONFIG: {"port": N, "jwks": {"keys": [private JWKs]},
//                                             "clients": [...client metadata...]}
// Prints "listening <issuer>" once it answers.
import { readFileSync } from 'node:fs';
import Provider from 'oidc-provider';

const config = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const issuer = `http://127.0.0.1:${config.port}`;

// login → claims. `groups` is given in the ID token, except for those marked
// `groupsAtUserinfoOnly` (then only the userinfo endpoint has it).
const ACCOUNTS = {
  alice: { email: 'alice@acme.example', email_verified: true, preferred_username: 'alice', groups: ['agents'] },
  nina: { email: 'nina@acme.example', email_verified: false, preferred_username: 'nina', groups: [] },
  zoe: { email: 'zoe@acme.example', email_verified: true, preferred_username: 'zoe', groups: [] },
  sam: { email: 'sam@example.com', email_verified: true, preferred_username: 'sam', groups: ['console-admins'] },
  tess: { email: 'tess@example.com', email_verified: true, preferred_username: 'tess', groups: ['acme-supervisors'], groupsAtUserinfoOnly: true },
  jane: { email: 'jane@democo.example', email_verified: true, preferred_username: 'jane', groups: [] },
  carl: { email: 'carl@example.com', email_verified: true, preferred_username: 'carl', groups: ['staff'] },
  // No email_verified at all: an address anyone could have typed at the provider.
  uma: { email: 'uma@example.com', preferred_username: 'uma', groups: ['console-admins'] },
};

const provider = new Provider(issuer, {
  clients: config.clients,
  jwks: config.jwks,
  scopes: ['openid', 'email', 'profile', 'groups'],
  claims: {
    openid: ['sub'],
    email: ['email', 'email_verified'],
    profile: ['preferred_username', 'name'],
    groups: ['groups'],
  },
  // The claims of the scopes asked for go in the ID token too, as most providers do.
  conformIdTokenClaims: false,
  pkce: { required: () => true },
  features: {
    devInteractions: { enabled: true },
    rpInitiatedLogout: { enabled: true },
  },
  // First-party clients: no consent screen.
  async loadExistingGrant(ctx) {
    const grant = new ctx.oidc.provider.Grant({
      clientId: ctx.oidc.client.clientId,
      accountId: ctx.oidc.session.accountId,
    });
    grant.addOIDCScope('openid email profile groups');
    await grant.save();
    return grant;
  },
  async findAccount(ctx, id) {
    const account = ACCOUNTS[id];
    if (!account) return undefined;
    return {
      accountId: id,
      async claims(use) {
        const { groupsAtUserinfoOnly, ...claims } = account;
        if (use === 'id_token' && groupsAtUserinfoOnly) delete claims.groups;
        return { sub: id, ...claims };
      },
    };
  },
});

// The app under test answers on loopback addresses at ports chosen per run.
const loopback = (uri) => /^http:\/\/(localhost|127\.0\.0\.1)(:\d+)?\//.test(uri);
provider.Client.prototype.redirectUriAllowed = loopback;
provider.Client.prototype.postLogoutRedirectUriAllowed = loopback;

provider.listen(config.port, '127.0.0.1', () => {
  console.log(`listening ${issuer}`);
});
