// The shield page: what a tab on a shielded website shows instead of it. Its address names
// the website (?site=) and ends with the page it stands for (&url=), which the extension
// gives back once the website is no longer shielded. Its look is the app's shield
// configuration over the defaults, from the owner; its buttons go to the app's delegate.
"use strict";

const query = location.search;
const parameters = new URLSearchParams(query.split("&url=")[0]);
const site = parameters.get("site") || "This website";
// Blocked by a web content filter: a page of its own, whose one button closes the tab.
const filtered = parameters.get("filter") === "1";
const title = document.getElementById("title");
const subtitle = document.getElementById("subtitle");
const primary = document.getElementById("primary");
const secondary = document.getElementById("secondary");

function rgba(color, fallback) {
  if (!color || typeof color.red !== "number") return fallback;
  const channel = (value) => Math.round(Math.min(1, Math.max(0, value)) * 255);
  return `rgba(${channel(color.red)}, ${channel(color.green)}, ${channel(color.blue)}, ${Math.min(1, Math.max(0, color.alpha ?? 1))})`;
}

function label(element, value, fallbackText) {
  element.textContent = value && typeof value.text === "string" ? value.text : fallbackText;
  element.style.color = rgba(value && value.color, "");
}

// The built-in look, until the owner's comes (the default shield's English texts).
document.title = filtered ? `${site} (blocked)` : `${site} (restricted)`;
title.textContent = filtered ? `${site} is blocked` : `${site} is restricted`;
subtitle.textContent = filtered
  ? "A web content filter set on this computer blocks this website."
  : `You can't use ${site} right now because a limit has been set on it.`;

// The app's icon in the place of the built-in clock: an image the owner sent (data: only).
function drawIcon(image) {
  if (typeof image !== "string" || !image.startsWith("data:image/")) return;
  let icon = document.querySelector(".icon");
  if (icon && icon.tagName.toLowerCase() !== "img") {
    const replacement = document.createElement("img");
    replacement.className = "icon";
    replacement.alt = "";
    replacement.width = 72;
    replacement.height = 72;
    icon.replaceWith(replacement);
    icon = replacement;
  }
  if (icon && icon.src !== image) icon.src = image;
}

function draw(look) {
  if (!look) return;
  drawIcon(look.iconImage);
  if (typeof look.windowTitle === "string") document.title = look.windowTitle;
  document.body.style.background = rgba(look.backgroundColor, "");
  label(title, look.title, title.textContent);
  label(subtitle, look.subtitle, subtitle.textContent);
  label(primary, look.primaryButtonLabel, "OK");
  primary.style.background = rgba(look.primaryButtonBackgroundColor, "");
  if (look.secondaryButtonLabel) {
    label(secondary, look.secondaryButtonLabel, "");
    secondary.hidden = false;
  } else {
    secondary.hidden = true;
  }
}

chrome.runtime.onMessage.addListener((message) => {
  if (message && message.kind === "shield-look" && message.site === site) draw(message.look);
});

async function tell(event) {
  if (filtered) return null;  // no app's delegate: the filter is the system's
  try {
    return await chrome.runtime.sendMessage({ kind: "shield", event, site });
  } catch (error) {
    return null;
  }
}

primary.addEventListener("click", async () => {
  const answer = await tell("primary");
  if (!answer || !answer.handled) {
    const tab = await chrome.tabs.getCurrent();
    if (tab) chrome.tabs.remove(tab.id);
  }
});
secondary.addEventListener("click", () => tell("secondary"));

tell("shown").then((answer) => draw(answer && answer.look));
