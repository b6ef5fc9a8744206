"""Signing in and out, and changing one's own password.

Each sign-in starts a session kept on the server (app.admin.sessions); signing out ends it,
so a copy of the cookie taken before opens nothing afterwards.
"""

from __future__ import annotations

from flask import (
    current_app,
    flash,
    make_response,
    redirect,
    render_template,
    request,
    session,
    url_for,
)
from flask_login import current_user, logout_user
from flask_wtf import FlaskForm
from wtforms import PasswordField
from wtforms.validators import DataRequired, EqualTo, Length

from app.admin.access import submit
from app.admin.blueprint import bp
from app.admin.forms import ConfirmForm, LoginForm
from app.admin.sessions import current_token, sign_in
from app.extensions import db, limiter
from app.services.actors import Actor
from app.services.people import sessions
from app.services.people.passwords import MAX_PASSWORD, MIN_PASSWORD
from app.services.people.sign_in_limits import AccountLocked, supervisor_account
from app.services.people.supervisors import authenticate, change_password
from app.services.sso.providers import provider_for
from app.web import sso_flow
from app.web.security import local_path
from app.web.sign_in_counts import count_sign_in, forget_sign_ins

FAILED_LOGIN = "Invalid e-mail address or password."


class PasswordChangeForm(FlaskForm):
    current = PasswordField(
        "Current password",
        validators=[DataRequired(), Length(max=MAX_PASSWORD)],
        render_kw={"autocomplete": "current-password"},
    )
    new = PasswordField(
        "New password",
        validators=[DataRequired(), Length(max=MAX_PASSWORD)],
        render_kw={"autocomplete": "new-password", "minlength": MIN_PASSWORD},
    )
    again = PasswordField(
        "New password again",
        validators=[DataRequired(), EqualTo("new", message="The two new passwords differ.")],
        render_kw={"autocomplete": "new-password"},
    )


def safe_next(target: str | None) -> str:
    """`next` only when it is a path on this site; the start page otherwise."""
    return local_path(target) or url_for("admin.tenants")


def _login_limit() -> str:
    return current_app.config["LOGIN_RATE_LIMIT"]


@bp.route("/login", methods=["GET", "POST"])
@limiter.limit(_login_limit, methods=["POST"])
def login():
    """Sign in with e-mail and password; one message for every failure, and a limit on the
    attempts at each account besides the one per client address."""
    form = LoginForm()
    if form.validate_on_submit():
        account = supervisor_account(form.email.data)
        try:
            count_sign_in(account)
        except AccountLocked as locked:
            form.password.errors.append(locked.message)
            response = make_response(_login_page(form), 429)
            response.headers["Retry-After"] = str(locked.retry_after)
            return response
        supervisor = authenticate(form.email.data, form.password.data)
        if supervisor is not None:
            sessions.end_session(current_token())  # a session this browser had before
            sign_in(supervisor)
            db.session.commit()
            forget_sign_ins(account)
            return redirect(safe_next(request.args.get("next")))
        form.password.errors.append(FAILED_LOGIN)
    return _login_page(form)


def _login_page(form: LoginForm) -> str:
    """The sign-in page: the console's identity provider first when it has one (the
    password form is then for break-glass accounts)."""
    return render_template("auth/login.html", form=form, sso=provider_for(None) is not None)


@bp.post("/logout")
def logout():
    """Sign out (a POST with its CSRF token, so no link can sign anyone out); the
    session ends on the server too."""
    if ConfirmForm().validate_on_submit():
        sessions.end_session(current_token())
        at_provider = sso_flow.provider_logout(
            provider_for(None), console_realm(), session.pop(sso_flow.LOGOUT_KEY, None)
        )
        db.session.commit()
        logout_user()
        flash("You are signed out.")
        if at_provider is not None:
            return at_provider
    return redirect(url_for("admin.login"))


@bp.get("/logout")
def confirm_logout():
    """A link to the sign-out URL (or a reload after it) asks first: only the POST of
    this page's button, with its CSRF token, signs out."""
    return render_template("auth/logout.html", form=ConfirmForm())


@bp.route("/account/password", methods=["GET", "POST"])
def password():
    """Change one's own password: every other session of this supervisor ends, and this
    browser carries on in a new one."""
    form = PasswordChangeForm()
    if request.method == "GET":
        return _password_page(form)
    supervisor = current_user._get_current_object()

    def change():
        change_password(
            supervisor, form.current.data, form.new.data, actor=Actor.supervisor(supervisor.email)
        )
        sign_in(supervisor)

    return submit(
        form,
        change,
        lambda error: _password_page(form, error),
        lambda _: "Password changed. Every other session of yours has ended.",
        url_for("admin.tenants"),
    )


def _password_page(form: PasswordChangeForm, error: str | None = None):
    status = 422 if error else 200
    return render_template("auth/password.html", form=form, error=error), status


def console_realm() -> sso_flow.Realm:
    """Where the console's identity provider answers (app/admin/sso.py)."""
    return sso_flow.Realm(
        tenant=None,
        url=lambda name: url_for(f"admin.sso_{name}", _external=True),
        home=url_for("admin.tenants"),
    )
