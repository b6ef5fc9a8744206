// The open desk keeps its agent present and warns before the task returns to its queue.
//
// Every few seconds the page posts a heartbeat (POST /desk/heartbeat), saying whether the
// agent worked the task since the last one; the server answers when each lapse would come:
// silence (the agent counts as offline) and the offer timeout (the task goes back to the
// queue). Before either, "Still there?" counts down with a "Keep it" button. A heartbeat
// that fails is retried; if the server stays out of reach the warning says so. Without
// this script the desk still works: each view of the page is a heartbeat (see README).
"use strict";

// POST a form's fields (with the page's CSRF token) asking for JSON. `signedOut` is true
// when the desk's sign-in page came back instead of JSON.
const deskPost = async (url, token, fields) => {
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
    return { ok: false, status: response.status, signedOut: true, data: {} };
  }
  return { ok: response.ok, status: response.status, signedOut: false, data: await response.json() };
};

(() => {
  const holder = document.getElementById("desk-presence");
  if (!holder) return;
  // The desk shown as a form's answer (a refused close, kept as sent): its address becomes
  // the desk's, so a reload asks for the desk and never sends the form again.
  if (holder.dataset.deskUrl) window.history.replaceState(null, "", holder.dataset.deskUrl);
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
    const answer = await deskPost(url, token, fields);
    if (answer.signedOut) {
      signedOut = true; // the desk's sign-in page came back instead
      throw new Error("signed out");
    }
    return answer;
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

// The desk's live channel (app/desk/live.py): what became of the task this page shows, and
// of the desk's session, within the two seconds the wallboard keeps too. The page follows
// its stream of server-sent events; without EventSource, or when the stream is refused (the
// page says why) or ends for good, it asks GET /desk/live every second instead (a sign-in page coming back
// means signed out). A task deleted, moved, changed, released or taken elsewhere, or the
// session ending, shows who did what and when above the task; the agent's choices stay on
// screen, read only, and are said back to note down; the countdown stops (a "desk:hold"
// event tells the call's script) and nothing more is sent. "Next task" then reloads: the
// next countdown starts only once the agent has read it. A task changed while the agent
// still holds it pauses the countdown and offers the new details.
(() => {
  const holder = document.getElementById("desk-presence");
  const box = document.querySelector("[data-desk-notice]");
  if (!holder || !box || !holder.dataset.liveUrl) return;
  const shown = holder.dataset.liveTask || "";
  const task = document.querySelector(".desk-task");
  const query = new URLSearchParams({ task: shown, seen: holder.dataset.liveSeen || "0" });
  const POLL_MS = 1000;
  let source = null;
  let polling = null;
  let done = false; // the task is gone or the session ended: nothing more to learn
  let changedSaid = false;

  // What the agent chose and has not saved: the ticked work codes, the outcome's time, any
  // text typed in the task's forms.
  const choices = () => {
    if (!task) return [];
    const said = [];
    for (const input of task.querySelectorAll("form input, form textarea, form select")) {
      if (input.type === "hidden" || input.type === "submit" || input.disabled) continue;
      if (input.type === "checkbox" || input.type === "radio") {
        if (!input.checked) continue;
        const group = input.closest("fieldset");
        const legend = group && group.dataset.group;
        const label = input.closest("label");
        const name = label ? (label.querySelector(".code-name") || label).textContent.trim() : input.value;
        said.push(legend ? `${legend}: ${name}` : name);
      } else if (input.value.trim()) {
        const label = input.id && task.querySelector(`label[for="${CSS.escape(input.id)}"]`);
        const name = label ? label.textContent.trim() : input.name;
        said.push(`${name}: ${input.value.trim()}`);
      }
    }
    return said;
  };

  // The task's forms keep what was chosen, on screen, and send nothing more.
  const readOnly = () => {
    if (!task) return;
    task.dataset.readOnly = "1";
    for (const control of task.querySelectorAll("input, textarea, select, button")) {
      if (control.type === "hidden") continue;
      if (control.tagName === "TEXTAREA" || (control.tagName === "INPUT" && !["checkbox", "radio"].includes(control.type))) {
        control.readOnly = true;
      } else {
        control.disabled = true;
      }
    }
    for (const link of task.querySelectorAll("a.dial")) link.removeAttribute("href");
    task.addEventListener("submit", (event) => event.preventDefault(), true);
  };

  const notice = (title, text, { next = "Next task", dismiss = false } = {}) => {
    box.querySelector("[data-notice-title]").textContent = title;
    box.querySelector("[data-notice-text]").textContent = text;
    const chosen = choices();
    const line = box.querySelector("[data-notice-choices]");
    line.textContent = chosen.length ? `Not saved, so note it down: ${chosen.join("; ")}.` : "";
    line.hidden = chosen.length === 0;
    const nextLink = box.querySelector("[data-notice-next]");
    nextLink.textContent = next;
    box.querySelector("[data-notice-dismiss]").hidden = !dismiss;
    const first = box.hidden;
    box.hidden = false;
    if (first) {
      // Focus moves to the notice only from nowhere: never out of a field being typed in.
      const from = document.activeElement;
      if (!from || from === document.body || (task && task.contains(from))) nextLink.focus();
    }
  };

  const stop = () => {
    done = true;
    if (source) source.close();
    source = null;
    if (polling !== null) window.clearInterval(polling);
    polling = null;
  };

  const signedOut = (text) => {
    document.dispatchEvent(new CustomEvent("desk:hold", { detail: { stop: true } }));
    notice("You are signed out", text, { next: "Sign in again" });
    readOnly();
    const state = document.querySelector("[data-state]");
    if (state) state.textContent = "SIGNED OUT";
    for (const button of document.querySelectorAll(".state-switch button")) button.disabled = true;
    box.dataset.kind = "signedOut";
    stop();
  };

  const heard = (news) => {
    if (done) return;
    if (!news.signedIn) {
      signedOut(news.notice || "You were signed out of the desk. Sign in again to go on.");
    } else if (shown && news.kind === "gone") {
      document.dispatchEvent(new CustomEvent("desk:hold", { detail: { stop: true } }));
      notice("This task is no longer yours", news.notice);
      readOnly();
      box.dataset.kind = "gone";
      stop();
    } else if (shown && news.kind === "changed" && !changedSaid) {
      changedSaid = true;
      document.dispatchEvent(new CustomEvent("desk:hold", { detail: { stop: false } }));
      notice("This task was changed while you worked it", news.notice,
        { next: "Show the changes", dismiss: true });
      box.dataset.kind = "changed";
    }
  };

  box.querySelector("[data-notice-dismiss]").addEventListener("click", () => {
    box.hidden = true;
  });

  const ask = async () => {
    if (done) return;
    try {
      const response = await fetch(`${holder.dataset.liveUrl}?${query}`, {
        credentials: "same-origin", cache: "no-store", headers: { Accept: "application/json" },
      });
      if (!(response.headers.get("Content-Type") || "").includes("application/json")) {
        heard({ signedIn: false }); // the desk's sign-in page came back instead
      } else if (response.ok) {
        heard(await response.json());
      }
    } catch (error) {
      // Unreachable: the heartbeat's warning says so; asked again at the next turn.
    }
  };

  const poll = () => {
    if (polling === null && !done) polling = window.setInterval(ask, POLL_MS);
  };

  // A stream refused (too many desk pages of this sign-in, the tenant's share or the
  // server's streams all taken) is asked why, as JSON, and the page says it while it polls.
  const paused = async () => {
    const message = await window.whyStreamRefused(`${holder.dataset.liveStream}?${query}`);
    if (done || !message) return;
    const line = window.statusLine(box, "livePaused");
    line.textContent = `${message} This page asks every second instead.`;
  };

  if (window.EventSource) {
    source = new EventSource(`${holder.dataset.liveStream}?${query}`);
    source.onmessage = (message) => heard(JSON.parse(message.data));
    // The server ends the stream once the session did, after its news; asked once more
    // should that news not have come.
    source.addEventListener("end", () => {
      if (source) source.close();
      source = null;
      if (!done) ask();
    });
    source.onerror = () => {
      // A stream cut asks at once (the session may have ended: the browser's own retry
      // would be sent to the sign-in page); one ended for good polls instead.
      ask();
      if (source && source.readyState === EventSource.CLOSED) {
        source = null;
        poll();
        paused();
      }
    };
  } else {
    poll();
  }
})();

// The call (templates/desk/_call.html). "Call" first asks the server to record the call's
// start (POST /desk/tasks/<id>/call): the server checks again, at that moment, that the
// number may be called. Only then does the page dial, through the `tel:` link or the
// tenant's Contact Control Panel (CCP); a refusal shows the server's message and dials
// nothing. The agent then says how the call ended (the CCP says it itself when it can):
// POST .../call-event records it and answers the work codes the result suggests, which
// the page ticks. A campaign's preview countdown, when it reaches zero, does what Call
// does; it pauses while "Still there?" shows (nobody may be at the desk) and on Escape.
(() => {
  const holder = document.getElementById("desk-presence");
  if (!holder) return;
  const token = holder.dataset.csrfToken;
  const warning = document.querySelector("[data-lapse-warning]");
  // The task's call panel: none without a task (the CCP still follows the agent's state).
  const panel = document.querySelector("[data-call]") || document.createElement("section");
  const message = panel.querySelector("[data-call-message]") || document.createElement("p");
  const callForm = panel.querySelector("[data-call-form]");
  const resultForm = panel.querySelector("[data-result-form]");
  const ccpHolder = document.querySelector("[data-ccp-holder]");
  const ccp = ccpHolder ? JSON.parse(ccpHolder.dataset.ccp) : null;
  let stage = panel.dataset.stage; // ready, dialling or ended; none without a task
  let callId = panel.dataset.callId || null;
  let connected = panel.dataset.connected === "1";
  let starting = false;

  const say = (text) => { message.textContent = text; };

  const show = (name) => {
    stage = panel.dataset.stage = name;
    for (const part of panel.querySelectorAll("[data-panel]")) part.hidden = part.dataset.panel !== name;
    panel.dispatchEvent(new CustomEvent("desk-call-stage", { detail: name }));
  };

  const resultLabel = (result) => {
    const button = resultForm.querySelector(`button[value="${CSS.escape(result || "")}"]`);
    return button ? button.textContent.trim() : result;
  };

  // Tick the work codes the result suggests (a radio's tick unticks its group's others).
  const tickCodes = (suggested) => {
    for (const [group, code] of suggested) {
      const input = document.querySelector(
        `.work-codes input[name="${CSS.escape(`wc:${group}`)}"][value="${CSS.escape(code)}"]`,
      );
      if (input && !input.checked) {
        input.checked = true;
        input.dispatchEvent(new Event("change", { bubbles: true }));
      }
    }
  };

  const ended = (data) => {
    show("ended");
    panel.querySelector("[data-call-result]").textContent = resultLabel(data.result);
    const suggested = data.suggested || [];
    panel.querySelector("[data-suggested-note]").hidden = suggested.length === 0;
    tickCodes(suggested);
    // A call that did not connect: "Call next number" dials the task's next callable one.
    const next = panel.querySelector(".call-next");
    if (next) {
      next.hidden = !data.next;
      next.elements.phone_key.value = data.next ? data.next.key : "";
      next.querySelector("[data-next-number]").textContent = data.next ? data.next.number : "";
    }
    // Focus moves to the result only from nowhere or from the call's own controls: never
    // out of a field being typed in (the CCP ends calls by itself).
    const from = document.activeElement;
    if (!from || from === document.body || panel.contains(from)) {
      const line = panel.querySelector("[data-panel='ended'] p");
      line.tabIndex = -1;
      line.focus();
    }
  };

  // Record CONNECTED or ENDED, one after the other in the order they happened; the answer
  // of ENDED is shown. Null when refused.
  let reported = Promise.resolve();
  const report = (event, result, contactId) => {
    reported = reported.then(() => send(event, result, contactId));
    return reported;
  };
  const send = async (event, result, contactId) => {
    const fields = { call_id: callId, event };
    if (result) fields.result = result;
    if (contactId) fields.contact_id = contactId;
    let answer;
    try {
      answer = await deskPost(panel.dataset.eventUrl, token, fields);
    } catch (error) {
      say("The desk cannot reach the server: say how the call ended again.");
      return null;
    }
    if (!answer.ok) {
      say(answer.signedOut ? "You were signed out of the desk. Sign in again to go on."
        : answer.data.message || "The server refused it.");
      return null;
    }
    if (event === "ENDED") ended(answer.data);
    return answer.data;
  };

  const dialTel = (placed) => {
    const link = panel.querySelector("[data-dial-link]");
    link.href = placed.dial;
    link.querySelector("[data-dial-number]").textContent = placed.phoneNumber;
    link.focus();
    link.click(); // the device's dialler
  };

  // ---- The Contact Control Panel (amazon-connect-streams) ----
  const connectLib = ccp ? window.connect : undefined;
  const DIAL_TIMEOUT_MS = 30000; // agent.connect answering neither success nor failure
  // Agent error states that end a dial, and the result each means. FailedConnectCustomer:
  // the customer's side did not pick up (rang out, rejected), counted as no answer; the
  // agent's own side failing is a failed call.
  const ERROR_RESULTS = {
    BadAddressCustomer: "INVALID_NUMBER",
    LineEngagedCustomer: "BUSY",
    FailedConnectCustomer: "NO_ANSWER",
    MissedCallCustomer: "NO_ANSWER",
    FailedConnectAgent: "FAILED",
    BadAddressAgent: "FAILED",
    LineEngagedAgent: "FAILED",
    MissedCallAgent: "FAILED",
  };
  // The desk's state for each kind of Connect state, and back.
  const DESK_STATE = { routable: "AVAILABLE", not_routable: "AWAY", offline: "OFFLINE" };
  const CONNECT_TYPES = {
    AVAILABLE: ["routable"],
    AWAY: ["not_routable", "offline"],
    OFFLINE: ["offline"],
  };
  const stateForm = document.querySelector(".state-switch");
  const deskState = () => (document.querySelector("[data-state]") || {}).dataset?.state;
  let ccpAgent = null;
  let switching = false;

  const setDeskState = (state) => {
    const fields = new FormData(stateForm);
    fields.set("state", state);
    switching = true;
    fetch(stateForm.action, { method: "POST", body: fields, credentials: "same-origin" })
      .finally(() => window.location.reload());
  };

  const followConnect = (agent, change) => {
    const now = agent.getState();
    if (ERROR_RESULTS[now.name] && stage === "dialling") {
      say(`The call did not go through (${now.name}).`);
      report("ENDED", ERROR_RESULTS[now.name]);
      return;
    }
    // The CCP's first state (from "Init") never moves the desk: signing in to the CCP
    // Offline must not give back the task on the desk. Later changes do.
    const desk = DESK_STATE[now.type];
    const first = !change || !change.oldState || change.oldState === connectLib.AgentAvailStates.INIT;
    if (first || !desk || switching || desk === deskState()) return;
    setDeskState(desk);
  };

  const dialCcp = (placed) => {
    if (ccp.placement === "contact-flow") return; // the call arrives as an incoming contact
    if (!ccpAgent) {
      say("The Contact Control Panel is not signed in: the call was not placed.");
      report("ENDED", "FAILED");
      return;
    }
    // The library's `timeout` bounds a dial that would answer neither success nor failure.
    ccpAgent.connect(connectLib.Endpoint.byPhoneNumber(placed.phoneNumber), {
      queueARN: ccp.queueArn || undefined,
      timeout: DIAL_TIMEOUT_MS,
      success: () => say(""),
      failure: () => {
        if (stage !== "dialling") return; // an error state said it already
        say("The Contact Control Panel could not place the call.");
        report("ENDED", "FAILED");
      },
    });
  };

  if (connectLib) {
    connectLib.core.initCCP(ccpHolder, {
      ccpUrl: ccp.url,
      loginPopup: true,
      loginPopupAutoClose: true,
      softphone: { allowFramedSoftphone: true },
    });
    connectLib.agent((agent) => {
      ccpAgent = agent;
      agent.onStateChange((change) => followConnect(agent, change));
    });
    connectLib.contact((contact) => {
      contact.onConnected((live) => {
        if (stage !== "dialling" || connected) return;
        connected = true;
        report("CONNECTED", null, live.getContactId());
      });
      contact.onEnded((gone) => {
        // Ended after connecting: answered (the agent may say voicemail instead). Ended
        // otherwise: an error state said why, or the agent says it.
        if (stage === "dialling" && connected) report("ENDED", "ANSWERED", gone.getContactId());
      });
    });
    // A page load ends the framed softphone's call: while a contact is live, the forms that
    // reload the desk wait (the result and the call's own requests never reload it).
    const active = Object.values(connectLib.CONTACT_ACTIVE_STATES);
    const contactOn = () => Boolean(ccpAgent)
      && ccpAgent.getContacts().some((contact) => active.includes(contact.getState().type));
    document.addEventListener("submit", (event) => {
      if (!contactOn() || event.defaultPrevented || panel.contains(event.target)) return;
      event.preventDefault();
      say("End the call in the Contact Control Panel first: this would reload the desk, and the call with it.");
    });
    // The idle desk looks for work again without a meta refresh, between contacts only.
    const idle = document.querySelector("[data-look-again]");
    if (idle && Number(idle.dataset.lookAgain) > 0) {
      window.setInterval(() => { if (!contactOn()) window.location.reload(); },
        Number(idle.dataset.lookAgain) * 1000);
    }
    // The desk's switch moves the Connect state too, then the desk's.
    stateForm.addEventListener("submit", (event) => {
      const wanted = event.submitter && event.submitter.value;
      if (!ccpAgent || !wanted) return;
      const target = CONNECT_TYPES[wanted]
        .map((type) => ccpAgent.getAgentStates().find((s) => s.type === type))
        .find(Boolean);
      if (!target) return;
      event.preventDefault();
      switching = true;
      const submit = () => setDeskState(wanted);
      ccpAgent.setState(target, { success: submit, failure: submit });
    });
  }

  // ---- Call, and the countdown ----
  const box = panel.querySelector("[data-countdown-box]");
  let deadline = null; // performance.now() at which the countdown dials
  let pausedLeft = null; // seconds left when paused
  let pausedBy = null; // "agent" (the button, Escape) or "warning" ("Still there?")
  let timer = null;
  let lastSaid = null;
  let stopped = false; // the task is gone or the session ended: nothing dials any more

  const stopCountdown = () => {
    if (timer !== null) window.clearInterval(timer);
    timer = null;
    if (box) box.hidden = true;
  };

  const start = async (phoneKey) => {
    if (starting || stage === "dialling" || stopped) return;
    starting = true;
    stopCountdown();
    say("");
    let answer;
    try {
      answer = await deskPost(panel.dataset.callUrl, token, { phone_key: phoneKey || "" });
    } catch (error) {
      answer = { ok: false, data: { message: "The desk cannot reach the server: the call was not placed." } };
    }
    starting = false;
    if (!answer.ok) {
      say(answer.signedOut ? "You were signed out of the desk. Sign in again to go on."
        : answer.data.message || "The call was refused.");
      return; // dials nothing
    }
    callId = answer.data.callId;
    connected = false;
    resultForm.querySelector("[data-call-id-field]").value = callId;
    const again = panel.querySelector(".call-again");
    if (again) again.elements.phone_key.value = answer.data.key;
    if (answer.data.failure) {
      ended(answer.data); // the contact centre could not place it: recorded FAILED
      say(answer.data.failure);
      return;
    }
    show("dialling");
    if (ccp) dialCcp(answer.data);
    else dialTel(answer.data);
  };

  for (const form of panel.querySelectorAll("[data-call-form]")) {
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      start(form.elements.phone_key.value);
    });
  }
  // A phone number of the task dials the same way, that item's number.
  for (const link of document.querySelectorAll(".desk-task .agent-view .detail a.dial")) {
    link.addEventListener("click", (event) => {
      if (stage === "dialling") return; // a plain tel: link while a call is on
      event.preventDefault();
      start(link.closest(".detail").dataset.key);
    });
  }
  if (resultForm) {
    resultForm.addEventListener("submit", (event) => {
      event.preventDefault();
      const result = event.submitter && event.submitter.value;
      if (result) report("ENDED", result);
    });
  }

  const secondsLeft = () => (pausedLeft !== null ? pausedLeft
    : Math.max(0, Math.ceil((deadline - performance.now()) / 1000)));

  const sayCountdown = (left) => {
    // Read out at the start, then at 30, 10 and 5 seconds: not every second.
    const said = box.querySelector("[data-countdown-said]");
    if (lastSaid === null || [30, 10, 5].includes(left)) {
      if (left !== lastSaid) said.textContent = `Calling in ${left} seconds.`;
      lastSaid = left;
    }
  };

  const tick = () => {
    if (pausedLeft === null && !warning.hidden) pause("warning"); // nobody may be at the desk
    else if (pausedBy === "warning" && warning.hidden) resume(); // kept: go on
    const left = secondsLeft();
    box.querySelector("[data-countdown-left]").textContent = String(left);
    box.querySelector("[data-countdown-bar]").value = left;
    if (pausedLeft !== null) return;
    sayCountdown(left);
    if (left <= 0) start(callForm.elements.phone_key.value);
  };

  const pauseButton = box && box.querySelector("[data-countdown-pause]");
  const pause = (by) => {
    if (pausedLeft !== null) return;
    pausedLeft = secondsLeft();
    pausedBy = by;
    pauseButton.textContent = "Resume the countdown";
    pauseButton.setAttribute("aria-pressed", "true");
    box.querySelector("[data-countdown-said]").textContent = "Countdown paused.";
  };
  const resume = () => {
    if (pausedLeft === null) return;
    deadline = performance.now() + pausedLeft * 1000;
    pausedLeft = null;
    pausedBy = null;
    lastSaid = null;
    pauseButton.textContent = "Pause the countdown";
    pauseButton.setAttribute("aria-pressed", "false");
    tick();
  };

  // The live channel says the task is gone or the session ended (stop: nothing dials any
  // more), or that someone changed the task (paused, for the agent to look first).
  document.addEventListener("desk:hold", (event) => {
    if (event.detail && event.detail.stop) {
      stopped = true;
      stopCountdown();
    } else if (timer !== null) {
      pause("agent");
    }
  });

  if (box && callForm && stage === "ready" && Number(panel.dataset.countdown) > 0) {
    deadline = performance.now() + Number(panel.dataset.countdown) * 1000;
    box.hidden = false;
    pauseButton.setAttribute("aria-pressed", "false");
    pauseButton.addEventListener("click", () => (pausedLeft === null ? pause("agent") : resume()));
    document.addEventListener("keydown", (event) => {
      if (event.key === "Escape" && timer !== null) pause("agent");
    });
    timer = window.setInterval(tick, 250);
    if (panel.dataset.countdownHeld === "1") {
      // The page says above why the last task was lost: the countdown waits for the agent.
      pause("agent");
      pauseButton.textContent = "Start the countdown";
      box.querySelector("[data-countdown-said]").textContent =
        "The countdown waits until you have read the message above.";
    }
    tick();
  }
})();

// Wrap-up (after-call work): once the call has ended the desk shows "Wrap-up m:ss", counted
// from the call's end (the server says how long ago at the page's view), and past the
// queue's wrap-up limit a warning; it never closes the task by itself. A redial stops it.
// The note typed in the close form goes with the plain Reschedule form too.
(() => {
  const panel = document.querySelector("[data-call]");
  const line = panel && panel.querySelector("[data-wrap-up]");
  if (line) {
    const timerText = line.querySelector("[data-wrap-up-timer]");
    const warning = panel.querySelector("[data-wrap-up-warning]");
    const limit = line.dataset.wrapUpLimit ? Number(line.dataset.wrapUpLimit) : null;
    let since = null; // performance.now() at the call's end
    let timer = null;

    const render = () => {
      const elapsed = Math.max(0, Math.floor((performance.now() - since) / 1000));
      timerText.textContent = `${Math.floor(elapsed / 60)}:${String(elapsed % 60).padStart(2, "0")}`;
      warning.hidden = !(limit !== null && elapsed > limit);
    };
    const begin = (elapsedSeconds) => {
      since = performance.now() - elapsedSeconds * 1000;
      if (timer === null) timer = window.setInterval(render, 1000);
      render();
    };
    const stop = () => {
      if (timer !== null) window.clearInterval(timer);
      timer = null;
      warning.hidden = true;
    };
    panel.addEventListener("desk-call-stage", (event) => {
      if (event.detail === "ended") begin(0);
      else stop();
    });
    if (panel.dataset.stage === "ended") begin(Number(line.dataset.wrapUpElapsed) || 0);
  }

  const note = document.querySelector("[data-note]");
  const copy = document.querySelector("[data-note-copy]");
  if (note && copy) copy.form.addEventListener("submit", () => { copy.value = note.value; });
})();
