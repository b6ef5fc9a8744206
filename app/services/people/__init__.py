"""The people who sign in: agents, supervisors, provisioned users, and their sign-ins.

- `users`: user provisioning (the User Provisioning API), in the service and the instance;
- `agents`: agents' skill queues, zones, invitations and passwords;
- `supervisors`: supervisor accounts and the tenants they may see;
- `passwords`: the rules a new password follows, and its hash;
- `sessions`: signed-in sessions kept on the server, so signing out ends one;
- `sign_in_limits`: the limit on sign-in attempts per account.
"""
