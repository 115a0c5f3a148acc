// The explorer canvas (anywidget): the Graphviz SVG with pan, zoom, fit-to-view and an overview.
// A click on a node sets `selected` to its <title> (n<nid>, or c<k> for a collapsed block); a
// click on a block frame's label sets `cluster_<path>` (collapse it). A drag pans (and is not a
// click); the wheel zooms around the pointer; the overview shows the whole drawing and the part
// in view (click it to centre there).
function parseBox(svg) {
  const vb = svg.getAttribute("viewBox");
  if (vb) { const [x, y, w, h] = vb.split(/[ ,]+/).map(Number); return { x, y, w, h }; }
  const bb = svg.getBBox();
  return { x: bb.x, y: bb.y, w: bb.width, h: bb.height };
}

function render({ model, el }) {
  const box = document.createElement("div");
  box.className = "mxlab-canvas";
  const tools = document.createElement("div");
  tools.className = "mxlab-tools";
  const overview = document.createElement("div");
  overview.className = "mxlab-overview";
  let svg = null, full = null, view = null, lens = null, moved = false;

  const apply = () => {
    if (!svg) return;
    svg.setAttribute("viewBox", `${view.x} ${view.y} ${view.w} ${view.h}`);
    if (lens) {
      lens.setAttribute("x", view.x); lens.setAttribute("y", view.y);
      lens.setAttribute("width", view.w); lens.setAttribute("height", view.h);
    }
  };
  // Fit the whole drawing, never enlarged past actual size (1 pt = 4/3 px).
  const fit = () => {
    const r = box.getBoundingClientRect();
    const w = Math.max(full.w, r.width * 0.75), h = Math.max(full.h, r.height * 0.75);
    view = { x: full.x - (w - full.w) / 2, y: full.y, w, h };
    apply();
  };
  const zoom = (factor, cx, cy) => {
    cx = cx ?? view.x + view.w / 2; cy = cy ?? view.y + view.h / 2;
    view = { x: cx - (cx - view.x) * factor, y: cy - (cy - view.y) * factor,
             w: view.w * factor, h: view.h * factor };
    apply();
  };
  const toGraph = (evt) => {
    const r = svg.getBoundingClientRect();
    const s = Math.max(view.w / r.width, view.h / r.height);
    const ox = view.x - (r.width * s - view.w) / 2, oy = view.y - (r.height * s - view.h) / 2;
    return [ox + (evt.clientX - r.left) * s, oy + (evt.clientY - r.top) * s, s];
  };
  const button = (text, title, action) => {
    const b = document.createElement("button");
    b.textContent = text; b.title = title;
    b.addEventListener("click", (e) => { e.stopPropagation(); action(); });
    tools.appendChild(b);
  };
  button("fit", "fit the whole graph in view", fit);
  button("+", "zoom in", () => zoom(0.8));
  button("-", "zoom out", () => zoom(1.25));
  button("1:1", "actual size", () => {
    const r = svg.getBoundingClientRect();
    view = { x: full.x, y: full.y, w: r.width * 0.75, h: r.height * 0.75 }; apply();
  });

  const markSelected = () => {
    if (!svg) return;
    svg.querySelectorAll("g.node").forEach((g) => {
      const title = g.querySelector("title");
      g.classList.toggle("mxlab-selected", !!title && title.textContent === model.get("selected"));
    });
  };
  // highlight: {css class: [DOT ids]}, e.g. the engine replay's running / read / live nodes
  let marked = [];
  const markHighlight = () => {
    if (!svg) return;
    marked.forEach(([g, cls]) => g.classList.remove(cls));
    marked = [];
    const byId = {};
    svg.querySelectorAll("g.node").forEach((g) => {
      const title = g.querySelector("title");
      if (title) byId[title.textContent] = g;
    });
    Object.entries(model.get("highlight") || {}).forEach(([cls, ids]) => {
      ids.forEach((id) => {
        const g = byId[id];
        if (g) { g.classList.add(cls); marked.push([g, cls]); }
      });
    });
  };
  const style = document.createElement("style");
  style.textContent = model.get("extra_css") || "";
  const pick = (key) => { if (!moved) { model.set("selected", key); model.save_changes(); } };

  const draw = () => {
    box.querySelectorAll("svg").forEach((s) => s.remove());
    overview.innerHTML = "";
    const holder = document.createElement("div");
    holder.innerHTML = model.get("svg");
    svg = holder.querySelector("svg");
    if (!svg) { lens = null; return; }
    svg.classList.add("mxlab-main");
    svg.removeAttribute("width"); svg.removeAttribute("height");
    svg.setAttribute("preserveAspectRatio", "xMidYMid meet");
    box.insertBefore(svg, overview);
    full = parseBox(svg);
    box.style.height = `${Math.min(560, Math.max(160, full.h * 4 / 3 + 16))}px`;
    svg.querySelectorAll("g.node").forEach((g) => {
      const title = g.querySelector("title");
      g.style.cursor = "pointer";
      g.addEventListener("click", () => pick(title ? title.textContent : ""));
    });
    svg.querySelectorAll("g.cluster").forEach((g) => {
      const title = g.querySelector("title");
      const label = g.querySelector("text");
      if (!title || !label || !title.textContent.startsWith("cluster_")) return;
      label.classList.add("mxlab-cluster-hit");
      label.addEventListener("click", () => pick(title.textContent));
    });
    const mini = svg.cloneNode(true);
    mini.classList.remove("mxlab-main");
    mini.setAttribute("viewBox", `${full.x} ${full.y} ${full.w} ${full.h}`);
    lens = document.createElementNS("http://www.w3.org/2000/svg", "rect");
    lens.setAttribute("fill", "rgba(214,39,40,0.12)");
    lens.setAttribute("stroke", "#d62728");
    lens.setAttribute("vector-effect", "non-scaling-stroke");
    mini.appendChild(lens);
    overview.appendChild(mini);
    overview.style.display = full.h * 4 / 3 > 540 || full.w * 4 / 3 > 1100 ? "" : "none";
    fit();
    markSelected();
    markHighlight();
  };

  box.addEventListener("wheel", (evt) => {
    if (!svg) return;
    evt.preventDefault();
    const [gx, gy] = toGraph(evt);
    zoom(evt.deltaY > 0 ? 1.15 : 1 / 1.15, gx, gy);
  }, { passive: false });
  box.addEventListener("mousedown", (evt) => {
    if (!svg || evt.button !== 0 || overview.contains(evt.target)) return;
    const start = [evt.clientX, evt.clientY], origin = { ...view };
    const [, , s] = toGraph(evt);
    moved = false;
    const move = (e) => {
      const dx = e.clientX - start[0], dy = e.clientY - start[1];
      if (Math.abs(dx) + Math.abs(dy) > 4) moved = true;
      if (moved) { view = { ...origin, x: origin.x - dx * s, y: origin.y - dy * s }; apply(); }
    };
    const up = () => {
      window.removeEventListener("mousemove", move);
      window.removeEventListener("mouseup", up);
      setTimeout(() => { moved = false; }, 0);
    };
    window.addEventListener("mousemove", move);
    window.addEventListener("mouseup", up);
  });
  overview.addEventListener("click", (evt) => {
    if (!full) return;
    const r = overview.getBoundingClientRect();
    const s = Math.max(full.w / r.width, full.h / r.height);
    const ox = full.x - (r.width * s - full.w) / 2, oy = full.y - (r.height * s - full.h) / 2;
    const cx = ox + (evt.clientX - r.left) * s, cy = oy + (evt.clientY - r.top) * s;
    view = { ...view, x: cx - view.w / 2, y: cy - view.h / 2 };
    apply();
  });

  model.on("change:svg", draw);
  model.on("change:selected", markSelected);
  model.on("change:highlight", markHighlight);
  box.appendChild(style);
  box.appendChild(tools);
  box.appendChild(overview);
  el.appendChild(box);
  draw();
}
export default { render };
