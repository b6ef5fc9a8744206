"""Signing in and out."""

from __future__ import annotations

from urllib.parse import urlsplit

from flask import current_app, flash, redirect, render_template, request, url_for
from flask_login import login_user, logout_user

from app.admin import bp
from app.admin.forms import ConfirmForm, LoginForm
from app.extensions import limiter
from app.services.supervisors import authenticate

FAILED_LOGIN = "Invalid e-mail address or password."


def safe_next(target: str | None) -> str:
    """`next` only when it is a path on this site; the start page otherwise."""
    if target:
        parts = urlsplit(target)
        if (
            not parts.scheme
            and not parts.netloc
            and target.startswith("/")
            and not target.startswith("//")
            and "\\" not in target
        ):
            return target
    return url_for("admin.tenants")


def _login_limit() -> str:
    return current_app.config["LOGIN_RATE_LIMIT"]


@bp.route("/login", methods=["GET", "POST"])
@limiter.limit(_login_limit, methods=["POST"])
def login():
    """Sign in with e-mail and password; one message for every failure."""
    form = LoginForm()
    if form.validate_on_submit():
        supervisor = authenticate(form.email.data, form.password.data)
        if supervisor is not None:
            login_user(supervisor)
            return redirect(safe_next(request.args.get("next")))
        form.password.errors.append(FAILED_LOGIN)
    return render_template("auth/login.html", form=form)


@bp.post("/logout")
def logout():
    """Sign out (a POST with its CSRF token, so no link can sign anyone out)."""
    if ConfirmForm().validate_on_submit():
        logout_user()
        flash("You are signed out.")
    return redirect(url_for("admin.login"))
