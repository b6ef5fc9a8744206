// The open desk keeps its agent present and warns before the task returns to its queue.
//
// Every few seconds the page posts a heartbeat (POST /desk/heartbeat), saying whether the
// agent worked the task since the last one; the server answers when each lapse would come:
// silence (the agent counts as offline) and the offer timeout (the task goes back to the
// queue). Before either, "Still there?" counts down with a "Keep it" button. A heartbeat
// that fails is retried; if the server stays out of reach the warning says so. Without
// this script the desk still works: each view of the page is a heartbeat (see README).
"use strict";

(() => {
  const holder = document.getElementById("desk-presence");
  if (!holder) return;
  const warning = document.querySelector("[data-lapse-warning]");
  const text = warning.querySelector("[data-lapse-text]");
  const keepForm = warning.querySelector("[data-keep-form]");
  const every = Math.max(1, Number(holder.dataset.heartbeatEvery)) * 1000;
  const token = holder.dataset.csrfToken;

  let presence = JSON.parse(holder.dataset.presence);
  let heardAt = performance.now(); // when `presence` was read from the server
  let lastContact = heardAt; // the last heartbeat the server answered
  let active = false; // the agent worked the task since the last heartbeat
  let unreachable = false;
  let signedOut = false;

  const task = document.querySelector(".desk-task");
  if (task) {
    for (const kind of ["input", "change", "click", "keydown"]) {
      task.addEventListener(kind, () => { active = true; }, { passive: true });
    }
  }

  const post = async (url, fields) => {
    const body = new FormData();
    body.append("csrf_token", token);
    for (const [name, value] of Object.entries(fields)) body.append(name, value);
    const response = await fetch(url, {
      method: "POST",
      body,
      credentials: "same-origin",
      headers: { Accept: "application/json" },
    });
    if (!(response.headers.get("Content-Type") || "").includes("application/json")) {
      signedOut = true; // the desk's sign-in page came back instead
      throw new Error("signed out");
    }
    return { ok: response.ok, data: await response.json() };
  };

  const heard = (data) => {
    presence = data;
    heardAt = lastContact = performance.now();
    unreachable = false;
  };

  const secondsLeft = (field) => {
    if (presence[field] === null || presence[field] === undefined) return null;
    return Math.max(0, Math.ceil(presence[field] - (performance.now() - heardAt) / 1000));
  };

  const show = (message, offerKeep) => {
    text.textContent = message;
    if (keepForm) keepForm.hidden = !offerKeep;
    if (warning.hidden) {
      warning.hidden = false;
      // Focus moves to "Keep it" only from nowhere: never out of a field being typed in.
      const button = keepForm && !keepForm.hidden && keepForm.querySelector("button");
      const idleFocus = !document.activeElement || document.activeElement === document.body;
      if (button && idleFocus) button.focus();
    }
  };

  const render = () => {
    if (signedOut) {
      show("You were signed out of the desk. Sign in again to go on.", false);
      return;
    }
    const warn = presence.warnSeconds;
    const offer = presence.task ? secondsLeft("offerLapsesIn") : null;
    const silentFor = (performance.now() - lastContact) / 1000;
    const idle = Math.max(0, Math.ceil(presence.idleLapsesIn - silentFor));
    if (unreachable && idle <= warn) {
      show(
        idle > 0
          ? `The desk cannot reach the server. Unless it reconnects, ${presence.task ? "your task returns to the queue" : "you count as offline"} in ${idle} s.`
          : "The desk cannot reach the server. It keeps trying; what you chose is still on this page.",
        false,
      );
    } else if (offer !== null && offer <= warn) {
      show(
        offer > 0
          ? `Your task returns to the queue in ${offer} s.`
          : "Your task went back to the queue. You can still close it while nobody else has taken it.",
        offer > 0,
      );
    } else {
      warning.hidden = true;
    }
  };

  const beat = async () => {
    const wasActive = active;
    active = false;
    try {
      const answer = await post(holder.dataset.heartbeatUrl, { active: wasActive ? "1" : "0" });
      if (answer.ok) heard(answer.data);
      else unreachable = true;
    } catch (error) {
      if (!signedOut) unreachable = true;
      if (wasActive) active = true; // say it with the next heartbeat
    }
    render();
  };

  if (keepForm) {
    keepForm.addEventListener("submit", async (event) => {
      event.preventDefault();
      try {
        const answer = await post(keepForm.action, {});
        if (answer.ok) {
          heard(answer.data);
        } else {
          window.location.reload(); // the task is no longer the agent's: the page says why
          return;
        }
      } catch (error) {
        if (!signedOut) unreachable = true;
      }
      render();
    });
  }

  window.setInterval(beat, every);
  window.setInterval(render, 1000);
  render();
})();
