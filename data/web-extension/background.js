// Screenward's browser extension. It tells screenward-web-host, over native messaging, which
// tab is active in each window and which window has the focus, each time that changes and
// only then: no timer runs while nothing changes. The host relays it to the person's agent
// (or, in an account a guardian manages, to the system daemon), which counts the time on the
// X window it sees focused, so the extension never measures time itself.
// The host passes on what the owner shields; the extension keeps one declarativeNetRequest
// rule that sends a shielded website's pages to its shield page before any of their content
// loads, and moves open tabs on such a website to the shield page (and back, once unshielded).
// One source for Chromium (a service worker) and Firefox (a background script).
"use strict";

const host = "org.screenward.web";
let port = null;
let lastSent = "";
// Reports are made one after another, so an older one never overtakes a newer one.
let queue = Promise.resolve();

function connect() {
  port = chrome.runtime.connectNative(host);
  port.onMessage.addListener((message) => {
    if (!message) return;
    if (message.kind === "shields") {
      shieldsQueue = shieldsQueue.then(() => applyShields(message)).catch((error) => problem(`shields not applied: ${error}`));
    } else if (message.kind === "shield-look" && typeof message.site === "string") {
      looks.set(message.site, message.look);
      // The open shield pages of that website redraw (none listening is no error).
      chrome.runtime.sendMessage({ kind: "shield-look", site: message.site, look: message.look }).catch(() => {});
    } else if (message.kind === "shield-close" && typeof message.site === "string") {
      closeShieldPages(message.site).catch((error) => problem(`shield pages not closed: ${error}`));
    }
  });
  port.onDisconnect.addListener(() => {
    port = null;
    lastSent = "";
    // The host ended (the agent went away, or it failed): try again in a second. This is
    // the only timer, and it runs only while the host is missing.
    setTimeout(connect, 1000);
  });
  port.postMessage({ kind: "hello", extension: chrome.runtime.getManifest().version });
  changed();
}

// What went wrong here goes to the host's log (the browser keeps it).
function problem(text) {
  console.error("screenward:", text);
  if (port) port.postMessage({ kind: "problem", text: String(text).slice(0, 500) });
}

function describe(tab) {
  if (!tab) return null;
  return { id: tab.id, url: tab.url || tab.pendingUrl || "", title: tab.title || "" };
}

async function report() {
  if (!port) return;
  const windows = await chrome.windows.getAll({ populate: true });
  const focused = windows.find((window) => window.focused);
  const message = {
    kind: "windows",
    focused: focused ? focused.id : -1,
    windows: windows.map((window) => ({
      id: window.id,
      incognito: window.incognito,
      tab: describe((window.tabs || []).find((tab) => tab.active)),
    })),
  };
  const text = JSON.stringify(message);
  if (text === lastSent || !port) return;
  lastSent = text;
  port.postMessage(message);
}

function changed() {
  queue = queue.then(report, report).catch((error) => problem(`no report: ${error}`));
}

// Shields.

let shields = { domains: [], allExcept: null };
let shieldsQueue = Promise.resolve();
const shieldPage = chrome.runtime.getURL("shield.html");

function hostOf(url) {
  try {
    const parsed = new URL(url);
    return parsed.protocol === "http:" || parsed.protocol === "https:" ? parsed.hostname : null;
  } catch (error) {
    return null;
  }
}

function covers(domain, host) {
  return host === domain || host.endsWith("." + domain);
}

// The website a page is shielded as (the name its store gave), or null.
function shieldedAs(url) {
  const host = hostOf(url);
  if (!host) return null;
  if (shields.allExcept) return shields.allExcept.some((domain) => covers(domain, host)) ? null : host;
  return shields.domains.find((domain) => covers(domain, host)) || null;
}

// A shield page's address: the website it shields, then the page it stands for.
function shieldAddress(site, url) {
  return `${shieldPage}?site=${encodeURIComponent(site)}&url=${url}`;
}

// The page a shield page stands for, from its own address; null for any other page.
function shieldedAddress(url) {
  if (!url.startsWith(shieldPage + "?site=")) return null;
  const start = url.indexOf("&url=");
  return start < 0 ? "" : url.slice(start + 5);
}

// The looks the owner gave each website's shield page (the app's configuration).
const looks = new Map();

// The website a shield page's address names, or null for any other page.
function shieldSiteOf(url) {
  if (!url.startsWith(shieldPage + "?site=")) return null;
  return decodeURIComponent(url.slice(shieldPage.length + 6).split("&url=")[0]);
}

async function closeShieldPages(site) {
  for (const tab of await chrome.tabs.query({})) {
    if (shieldSiteOf(tab.url || "") === site) await chrome.tabs.remove(tab.id);
  }
}

// A shield page says it is shown (and gets the look known so far), or that a button was
// pressed: the owner decides what happens. Without the host, OK closes the page itself.
chrome.runtime.onMessage.addListener((message, sender, sendResponse) => {
  if (!message || message.kind !== "shield" || typeof message.site !== "string") return false;
  if (port) port.postMessage({ kind: "shield", event: message.event, site: message.site });
  sendResponse({ look: looks.get(message.site) || null, handled: port !== null });
  return false;
});

async function applyShields(message) {
  shields = {
    domains: Array.isArray(message.domains) ? message.domains : [],
    allExcept: Array.isArray(message.allExcept) ? message.allExcept : null,
  };
  // One rule per shielded website, each sending its pages' main frames to the shield page
  // before a byte of them loads; with every website shielded, one rule for all but the spared.
  const redirect = (site) => ({ type: "redirect", redirect: { regexSubstitution: shieldAddress(site, "\\0") } });
  const rules = [];
  if (shields.allExcept) {
    const condition = { regexFilter: "^https?://([^/:]+).*", resourceTypes: ["main_frame"] };
    if (shields.allExcept.length > 0) condition.excludedRequestDomains = shields.allExcept;
    rules.push({ id: 1, priority: 1, condition, action: { type: "redirect", redirect: { regexSubstitution: `${shieldPage}?site=\\1&url=\\0` } } });
  } else {
    shields.domains.forEach((site, index) => {
      rules.push({ id: index + 1, priority: 1, condition: { regexFilter: "^https?://.*", requestDomains: [site], resourceTypes: ["main_frame"] }, action: redirect(site) });
    });
  }
  try {
    const old = (await chrome.declarativeNetRequest.getDynamicRules()).map((rule) => rule.id);
    await chrome.declarativeNetRequest.updateDynamicRules({ removeRuleIds: old, addRules: rules });
  } catch (error) {
    // Open tabs are still covered below; new navigations are not until this is fixed.
    problem(`the shield rule was refused: ${error}`);
  }
  // Open tabs: covered, or given back their page.
  for (const tab of await chrome.tabs.query({})) {
    const url = tab.url || tab.pendingUrl || "";
    const behind = shieldedAddress(url);
    const site = behind === null ? shieldedAs(url) : null;
    if (behind !== null && behind !== "" && shieldedAs(behind) === null) {
      await chrome.tabs.update(tab.id, { url: behind });
    } else if (site !== null) {
      await chrome.tabs.update(tab.id, { url: shieldAddress(site, url) });
    }
  }
}

chrome.windows.onFocusChanged.addListener(changed);
chrome.windows.onCreated.addListener(changed);
chrome.windows.onRemoved.addListener(changed);
chrome.tabs.onActivated.addListener(changed);
chrome.tabs.onRemoved.addListener(changed);
chrome.tabs.onAttached.addListener(changed);
chrome.tabs.onDetached.addListener(changed);
chrome.tabs.onReplaced.addListener(changed);
chrome.tabs.onUpdated.addListener((tabId, change, tab) => {
  if (tab.active && ("url" in change || "title" in change)) changed();
});

connect();
