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
// Whether the owner's shields are applied since this connection: until then no report is
// made, so that a page the shields replace is never reported (nor counted) as shown.
let ready = false;
// Reports are made one after another, so an older one never overtakes a newer one.
let queue = Promise.resolve();

function connect() {
  port = chrome.runtime.connectNative(host);
  port.onMessage.addListener((message) => {
    if (!message) return;
    if (message.kind === "shields") {
      shieldsQueue = shieldsQueue.then(() => applyShields(message)).catch((error) => problem(`shields not applied: ${error}`));
    } else if (message.kind === "shield-look" && typeof message.site === "string") {
      // The icon comes as an image of its own (a data: URL), beside the look.
      const look = Object.assign({}, message.look, { iconImage: typeof message.iconImage === "string" ? message.iconImage : null });
      looks.set(message.site, look);
      // The open shield pages of that website redraw (none listening is no error).
      chrome.runtime.sendMessage({ kind: "shield-look", site: message.site, look }).catch(() => {});
    } else if (message.kind === "shield-close" && typeof message.site === "string") {
      closeShieldPages(message.site).catch((error) => problem(`shield pages not closed: ${error}`));
    }
  });
  port.onDisconnect.addListener(() => {
    port = null;
    lastSent = "";
    ready = false;
    // The host ended (the agent went away, or it failed): try again in a second. This is
    // the only timer, and it runs only while the host is missing.
    setTimeout(connect, 1000);
  });
  // The host answers the hello by registering with the owner, which sends its shields; an
  // owner that sends none in 3 s gets the reports anyway.
  port.postMessage({ kind: "hello", extension: chrome.runtime.getManifest().version });
  setTimeout(() => {
    if (!ready) {
      ready = true;
      changed();
    }
  }, 3000);
}

// What went wrong here goes to the host's log (the browser keeps it).
function problem(text) {
  console.error("screenward:", text);
  if (port) port.postMessage({ kind: "problem", text: String(text).slice(0, 500) });
}

function describe(tab) {
  if (!tab) return null;
  const url = tab.url || tab.pendingUrl || "";
  // A page the shields replace is reported as its shield page (which counts for nothing),
  // even in the moment before the tab has gone there.
  const replacement = replacementFor(url);
  return {
    id: tab.id,
    url: replacement ? shieldAddress(replacement.site, url, replacement.filter) : url,
    title: tab.title || "",
  };
}

async function report() {
  if (!port || !ready) return;
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

let shields = { domains: [], allExcept: null, filtered: [], filteredAllExcept: null, addresses: false };
let shieldsQueue = Promise.resolve();
const shieldPage = chrome.runtime.getURL("shield.html");

function hostOf(url) {
  try {
    const parsed = new URL(url);
    if (parsed.protocol !== "http:" && parsed.protocol !== "https:") return null;
    // The root's dot (`example.com.`) names the same host, which the rules' domains do not match.
    return parsed.hostname.endsWith(".") ? parsed.hostname.slice(0, -1) : parsed.hostname;
  } catch (error) {
    return null;
  }
}

// An address rather than a website's name: an IPv4 or IPv6 address, or a name without a dot
// (localhost, a machine of the network). Another name for any website, which the owner cannot
// tell apart from one it limits: in a managed account, none is a website to use.
function isAddress(host) {
  return /^[0-9.]+$/.test(host) || host.startsWith("[") || !host.includes(".");
}

function covers(domain, host) {
  return host === domain || host.endsWith("." + domain);
}

// The website a page is held back as, by a list or by "all but": the name the owner gave
// it, or its host; null when the page may load.
function matching(url, domains, allExcept) {
  const host = hostOf(url);
  if (!host) return null;
  if (allExcept) return allExcept.some((domain) => covers(domain, host)) ? null : host;
  return domains.find((domain) => covers(domain, host)) || null;
}

// What a page shows instead of itself: the filter's page (a filter blocks it), the shield
// (a store shields it), or nothing.
function replacementFor(url) {
  const filtered = matching(url, shields.filtered, shields.filteredAllExcept);
  if (filtered !== null) return { site: filtered, filter: true };
  const shielded = matching(url, shields.domains, shields.allExcept);
  if (shielded !== null) return { site: shielded, filter: false };
  const host = hostOf(url);
  return shields.addresses && host && isAddress(host) ? { site: host, filter: false } : null;
}

// A shield page's address: the website it shields (and whether a filter blocks it), then
// the page it stands for.
function shieldAddress(site, url, filter = false) {
  return `${shieldPage}?site=${encodeURIComponent(site)}${filter ? "&filter=1" : ""}&url=${url}`;
}

// The page a shield page stands for, from its own address; null for any other page.
function shieldedAddress(url) {
  if (!url.startsWith(shieldPage + "?site=")) return null;
  const start = url.indexOf("&url=");
  return start < 0 ? "" : url.slice(start + 5);
}

// The looks the owner gave each website's shield page (the app's configuration).
const looks = new Map();

// What a shield page's address names (its website, whether a filter blocks it), or null
// for any other page.
function shieldOf(url) {
  if (!url.startsWith(shieldPage + "?site=")) return null;
  const query = new URLSearchParams(url.slice(shieldPage.length).split("&url=")[0]);
  return { site: query.get("site"), filter: query.get("filter") === "1" };
}

function shieldSiteOf(url) {
  const shield = shieldOf(url);
  return shield && !shield.filter ? shield.site : null;
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
    filtered: Array.isArray(message.filtered) ? message.filtered : [],
    filteredAllExcept: Array.isArray(message.filteredAllExcept) ? message.filteredAllExcept : null,
    addresses: message.addresses === true,
  };
  // One rule per shielded website, each sending its pages' main frames to the shield page
  // before a byte of them loads; with every website shielded, one rule for all but the spared.
  // The filter's rules come first (a higher priority): a page both blocked and shielded
  // shows the filter's page.
  const rules = [];
  const add = (domains, allExcept, filter, firstID, priority) => {
    const marker = filter ? "&filter=1" : "";
    if (allExcept) {
      const condition = { regexFilter: "^https?://([^/:]+).*", resourceTypes: ["main_frame"] };
      if (allExcept.length > 0) condition.excludedRequestDomains = allExcept;
      rules.push({ id: firstID, priority, condition, action: { type: "redirect", redirect: { regexSubstitution: `${shieldPage}?site=\\1${marker}&url=\\0` } } });
    } else {
      domains.forEach((site, index) => {
        rules.push({
          id: firstID + index, priority, condition: { regexFilter: "^https?://.*", requestDomains: [site], resourceTypes: ["main_frame"] },
          action: { type: "redirect", redirect: { regexSubstitution: shieldAddress(site, "\\0", filter) } },
        });
      });
    }
  };
  add(shields.domains, shields.allExcept, false, 1, 1);
  if (shields.addresses) {
    // Pages at an address: an IPv4 address, a bracketed IPv6 one, or a name without a dot.
    const regexFilter = "^https?://(\\[[^/]*\\]|[0-9.]+|[^./:]+)(:[0-9]+)?(/.*)?$";
    rules.push({
      id: 90000, priority: 1, condition: { regexFilter, resourceTypes: ["main_frame"] },
      action: { type: "redirect", redirect: { regexSubstitution: `${shieldPage}?site=\\1&url=\\0` } },
    });
  }
  add(shields.filtered, shields.filteredAllExcept, true, 100000, 2);
  // Open tabs are covered while the rules change (a tab on the screen does not wait for
  // them: only navigations need them), and given back their pages once the rules no longer
  // send those pages to the shield.
  const tabs = await chrome.tabs.query({});
  await Promise.all([updateRules(rules), ...tabs.map((tab) => settle(tab, { cover: true }))]);
  await Promise.all(tabs.map((tab) => settle(tab, { cover: false })));
  if (!ready) {
    ready = true;
    changed();
  }
}

async function updateRules(rules) {
  try {
    const old = (await chrome.declarativeNetRequest.getDynamicRules()).map((rule) => rule.id);
    await chrome.declarativeNetRequest.updateDynamicRules({ removeRuleIds: old, addRules: rules });
  } catch (error) {
    // Open tabs are still covered; new navigations are not until this is fixed.
    problem(`the shield rule was refused: ${error}`);
  }
}

// An open tab covered (`cover`), or given back its page or redrawn (not `cover`), as the
// shields now say.
async function settle(tab, { cover }) {
  try {
    const url = tab.url || tab.pendingUrl || "";
    const behind = shieldedAddress(url);
    if (behind === null) {
      const replacement = cover ? replacementFor(url) : null;
      if (replacement) await chrome.tabs.update(tab.id, { url: shieldAddress(replacement.site, url, replacement.filter) });
    } else if (behind !== "" && !cover) {
      // A shield page: given back its page, or redrawn for what holds it back now.
      const now = replacementFor(behind);
      const shown = shieldOf(url);
      if (now === null) {
        await chrome.tabs.update(tab.id, { url: behind });
      } else if (shown.site !== now.site || shown.filter !== now.filter) {
        await chrome.tabs.update(tab.id, { url: shieldAddress(now.site, behind, now.filter) });
      }
    }
  } catch (error) {
    problem(`a tab was not ${cover ? "covered" : "given back its page"}: ${error}`);
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
  // A page the rules let through though it is held back (another spelling of its host, such
  // as the root's dot) is covered as soon as the tab names it.
  if ("url" in change && replacementFor(change.url)) settle(tab, { cover: true });
  if (tab.active && ("url" in change || "title" in change)) changed();
});

connect();
