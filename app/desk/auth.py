"""Agents signing in to the desk, accepting an invitation, and signing out.

The desk keeps its signed-in agent under a session key of its own (`AGENT_TOKEN_KEY`),
never Flask-Login's: a supervisor's session opens no desk, and an agent's opens no
supervisor page. The key carries a token of a session kept on the server
(`agent_sessions`), so signing out really ends it.
"""

from __future__ import annotations

from flask import (
    abort,
    current_app,
    flash,
    g,
    make_response,
    redirect,
    render_template,
    request,
    session,
    url_for,
)

from app.desk import bp
from app.desk.forms import DeskButtonForm, DeskLoginForm, InviteForm, TenantLoginForm
from app.extensions import db, limiter
from app.models import AgentState, ProviderKind, Tenant, User
from app.services.actors import Actor
from app.services.delivery import agent_state
from app.services.errors import ServiceError
from app.services.people import agents, sessions
from app.services.people.sign_in_limits import AccountLocked, agent_account
from app.services.sso import desk_passwords
from app.services.sso import ldap as directory
from app.services.sso.identity import SignInRefused
from app.services.sso.providers import provider_for
from app.services.tenants.setup import find_tenant
from app.web import sso_flow
from app.web.security import local_path
from app.web.sign_in_counts import count_sign_in, forget_sign_ins

AGENT_TOKEN_KEY = "_desk_token"  # noqa: S105 - a key name, not a secret
FAILED_LOGIN = "Invalid company, environment, login user id or password."
PUBLIC_ENDPOINTS = frozenset({"desk.login", "desk.tenant_login", "desk.invite"})
# Signing in through an identity provider (app/desk/sso.py): every step is public.
SSO_ENDPOINTS = "desk.sso_"
# The tenant this browser signed in to last ("COMPANY/ENVIRONMENT"): the plain sign-in page
# sends the agent on to that tenant's own page, where nobody types them again.
TENANT_COOKIE = "desk_tenant"
TENANT_COOKIE_DAYS = 400


def session_limits() -> sessions.SessionLimits:
    return sessions.SessionLimits.of(current_app.config)


def current_agent() -> User | None:
    """The agent signed in to the desk in this browser, or None (once per request)."""
    if "desk_agent" not in g:
        token = session.get(AGENT_TOKEN_KEY)
        agent_id = (
            sessions.live_session(token, session_limits(), sessions.AGENTS) if token else None
        )
        agent = db.session.get(User, agent_id) if agent_id is not None else None
        # A deactivated agent's sessions are ended with it; none is honoured meanwhile.
        g.desk_agent = agent if agent is not None and agent.active else None
    return g.desk_agent


def sign_in(agent: User) -> None:
    """Start a desk session for this browser (the caller commits), ending the one it had."""
    sessions.end_session(session.get(AGENT_TOKEN_KEY), sessions.AGENTS)
    session[AGENT_TOKEN_KEY] = sessions.start_session(agent, session_limits(), sessions.AGENTS)
    g.desk_agent = agent


def safe_next(target: str | None) -> str:
    """`next` only when it is a desk path on this site; the desk otherwise."""
    return local_path(target, "/desk") or url_for("desk.home")


@bp.before_request
def _guard():
    """NUL-free input everywhere; every page but sign-in and invitations needs an agent."""
    for values in (request.args, request.form):
        if any("\x00" in key + value for key, value in values.items(multi=True)):
            abort(400, "A field holds a NUL character, which no field may contain.")
    public = request.endpoint in PUBLIC_ENDPOINTS or (request.endpoint or "").startswith(
        SSO_ENDPOINTS
    )
    if not public and current_agent() is None:
        return redirect(url_for("desk.login", next=request.full_path.rstrip("?")))
    return None


@bp.after_request
def _no_store(response):
    """Desk pages show customers' data and invitation tokens: never cached."""
    response.headers["Cache-Control"] = "no-store"
    return response


def _login_limit() -> str:
    return current_app.config["LOGIN_RATE_LIMIT"]


def _password_sign_in(tenant: Tenant | None, company: str, environment: str, form, template):
    """Check the login user id and password posted in `form` (the per-account limit first);
    a response when the agent is signed in or locked out, else None with the form's error
    set (one message for every failure)."""
    account = agent_account(tenant, company, environment, form.login_user_id.data)
    if (locked := _locked_out(account, form, template)) is not None:
        return locked
    agent = agents.authenticate(tenant, form.login_user_id.data, form.password.data)
    if agent is None:
        form.password.errors.append(FAILED_LOGIN)
        return None
    sign_in(agent)
    db.session.commit()
    forget_sign_ins(account)
    return remember_tenant(redirect(safe_next(request.args.get("next"))), agent.tenant)


def _locked_out(account: str, form, template):
    """Count an attempt at the account: the 429 page when it has none left, else None."""
    try:
        count_sign_in(account)
    except AccountLocked as locked:
        form.password.errors.append(locked.message)
        response = make_response(template(), 429)
        response.headers["Retry-After"] = str(locked.retry_after)
        return response
    return None


def remember_tenant(response, tenant: Tenant):
    """Remember in this browser which tenant the agent works for (not a secret: it only
    saves typing)."""
    response.set_cookie(
        TENANT_COOKIE,
        f"{tenant.company_code}/{tenant.environment}",
        max_age=TENANT_COOKIE_DAYS * 86400,
        secure=current_app.config["SESSION_COOKIE_SECURE"],
        httponly=True,
        samesite="Lax",
        path="/desk",
    )
    return response


def _remembered_tenant() -> Tenant | None:
    company, _, environment = request.cookies.get(TENANT_COOKIE, "").partition("/")
    if not company or not environment:
        return None
    return find_tenant(current_app.config["PLATFORM_CODE"], company, environment)


@bp.route("/login", methods=["GET", "POST"])
@limiter.limit(_login_limit, methods=["POST"])
def login():
    """Sign in with the tenant, the login user id and the password; one message for every
    failure. A browser that signed in before goes on to its tenant's own page (`?other`
    asks for this form all the same)."""
    form = DeskLoginForm()
    remembered = _remembered_tenant() if request.method == "GET" else None
    if remembered is not None and "other" not in request.args:
        return redirect(tenant_login_url(remembered, request.args.get("next")))
    if form.validate_on_submit():
        company, environment = form.company.data, form.environment.data
        tenant = find_tenant(current_app.config["PLATFORM_CODE"], company, environment)
        if tenant is not None and not _passwords_here(tenant):
            # Say where this tenant signs in only to whoever already names it.
            return redirect(tenant_login_url(tenant, request.args.get("next")))
        page = lambda: render_template("desk/login.html", form=form)  # noqa: E731
        done = _password_sign_in(tenant, company, environment, form, page)
        if done is not None:
            return done
    return render_template("desk/login.html", form=form), (422 if form.errors else 200)


def _directory_sign_in(tenant: Tenant, provider, form, template):
    """Sign in with the directory's own user name and password (app/services/sso/ldap), then,
    while the agents' own desk passwords are on, the agent's desk password
    (app/services/sso/desk_passwords); counted against the account's limit like a desk
    password; one message for every refused password, a clear page when the directory is
    down or the person it vouches for is no agent here (nothing is created for them)."""
    login = form.login_user_id.data
    account = agent_account(tenant, tenant.company_code, tenant.environment, login)
    if (locked := _locked_out(account, form, template)) is not None:
        return locked
    try:
        agent = desk_passwords.check_password(tenant, provider, login, form.password.data)
    except directory.DirectoryUnavailable as down:
        return _refused(tenant, down.message, 503)
    except SignInRefused as refused:
        db.session.rollback()
        return _refused(tenant, refused.message, 403)
    if agent is None:
        form.password.errors.append(FAILED_LOGIN)
        return None
    sign_in(agent)
    db.session.commit()
    forget_sign_ins(account)
    return remember_tenant(redirect(safe_next(request.args.get("next"))), tenant)


def _refused(tenant: Tenant, message: str, status: int):
    response = make_response(
        render_template("desk/sso_refused.html", tenant=tenant, message=message), status
    )
    if status == 503:
        response.headers["Retry-After"] = "60"
    return response


def tenant_login_url(tenant: Tenant, next_path: str | None = None) -> str:
    return url_for(
        "desk.tenant_login",
        company=tenant.company_code,
        environment=tenant.environment,
        next=local_path(next_path, "/desk"),
    )


def _passwords_here(tenant: Tenant) -> bool:
    """Whether the tenant's agents sign in with a password of ours alone (a directory
    tenant's password is the directory's first, checked on the tenant's own page)."""
    provider = provider_for(tenant)
    return desk_passwords.passwords_taken(tenant, provider) == (desk_passwords.Password.DESK,)


@bp.route("/login/<company>/<environment>", methods=["GET", "POST"])
@limiter.limit(_login_limit, methods=["POST"])
def tenant_login(company: str, environment: str):
    """A tenant's own sign-in page: its identity provider's button, its directory's form,
    or the password form, as the tenant is set up; nobody types the company again."""
    tenant = find_tenant(current_app.config["PLATFORM_CODE"], company, environment)
    if tenant is None:
        return render_template("desk/tenant_unknown.html"), 404
    provider = provider_for(tenant)
    form = TenantLoginForm()

    def page():
        return render_template(
            "desk/tenant_login.html",
            tenant=tenant,
            provider=provider,
            form=form,
            passwords=_passwords_here(tenant),
            next_path=local_path(request.args.get("next"), "/desk"),
        )

    if request.method == "POST" and form.validate_on_submit():
        done = None
        if provider is not None and provider.kind == ProviderKind.LDAP:
            done = _directory_sign_in(tenant, provider, form, page)
        elif _passwords_here(tenant):
            done = _password_sign_in(tenant, company, environment, form, page)
        if done is not None:
            return done
    status = 422 if form.errors else 200
    return remember_tenant(make_response(page(), status), tenant)


@bp.route("/invite/<token>", methods=["GET", "POST"])
@limiter.limit(_login_limit, methods=["POST"])
def invite(token: str):
    """Choose a password through a one-time invitation; the agent is then signed in."""
    if agents.invited(token) is None:
        return _no_referrer(render_template("desk/invite_invalid.html"), 404)
    form = InviteForm()
    error = None
    if form.validate_on_submit():
        try:
            agent = agents.accept_invite(token, form.new.data)
            sign_in(agent)
            db.session.commit()
        except ServiceError as refused:
            db.session.rollback()
            error = refused.message
        else:
            flash("Your password is set. Welcome to the desk.")
            return redirect(url_for("desk.home"))
    status = 422 if error or form.errors else 200
    return _no_referrer(render_template("desk/invite.html", form=form, error=error), status)


def _no_referrer(body: str, status: int):
    # The token is in this page's address: no link or asset may carry it elsewhere.
    response = make_response(body, status)
    response.headers["Referrer-Policy"] = "no-referrer"
    return response


@bp.post("/logout")
def logout():
    """Sign out (a POST with its CSRF token): the agent goes OFFLINE, the session ends."""
    if DeskButtonForm().validate_on_submit():
        agent = current_agent()
        agent_state.set_agent_state(
            agent, AgentState.OFFLINE, actor=Actor.agent(agent.login_user_id)
        )
        sessions.end_session(session.pop(AGENT_TOKEN_KEY, None), sessions.AGENTS)
        at_provider = sso_flow.provider_logout(
            provider_for(agent.tenant),
            sso_realm(agent.tenant),
            session.pop(sso_flow.LOGOUT_KEY, None),
        )
        db.session.commit()
        flash("You are signed out.")
        return at_provider or redirect(tenant_login_url(agent.tenant))
    return redirect(url_for("desk.home"))


def sso_realm(tenant: Tenant) -> sso_flow.Realm:
    """Where the tenant's identity provider answers for the desk (app/desk/sso.py)."""

    def url(name: str) -> str:
        return url_for(
            f"desk.sso_{name}",
            company=tenant.company_code,
            environment=tenant.environment,
            _external=True,
        )

    return sso_flow.Realm(tenant=tenant, url=url, home=url_for("desk.home"))
