// zoom.js: zoom and pan of one image by wheel, double-click, pinch and drag,
// and horizontal swipes reported to the caller when not zoomed in.

const MAX_SCALE = 8;
const SWIPE_DISTANCE = 60;

export class Zoom {
  /** `onScale(scale)` runs after every change of scale (the viewer loads the original past the preview's pixels). */
  constructor(surface, target, { onSwipe, onScale = () => {} }) {
    this.surface = surface;
    this.target = target;
    this.onSwipe = onSwipe;
    this.onScale = onScale;
    this.pointers = new Map();
    this.enabled = true;
    this.reset();
    surface.addEventListener('wheel', (event) => this.wheel(event), { passive: false });
    surface.addEventListener('dblclick', (event) => this.doubleClick(event));
    surface.addEventListener('pointerdown', (event) => this.down(event));
    surface.addEventListener('pointermove', (event) => this.move(event));
    surface.addEventListener('pointerup', (event) => this.up(event));
    surface.addEventListener('pointercancel', (event) => this.up(event, true));
  }

  get zoomed() {
    return this.scale > 1.01;
  }

  reset() {
    this.scale = 1;
    this.x = 0;
    this.y = 0;
    this.swipe = 0;
    this.apply();
  }

  /** Multiplies the scale by `factor`, keeping the point (cx, cy) from the surface centre still. */
  by(factor, cx = 0, cy = 0) {
    const scale = Math.min(MAX_SCALE, Math.max(1, this.scale * factor));
    const f = scale / this.scale;
    this.x = cx - (cx - this.x) * f;
    this.y = cy - (cy - this.y) * f;
    this.scale = scale;
    if (scale === 1) { this.x = 0; this.y = 0; }
    this.clamp();
    this.apply();
  }

  clamp() {
    const rect = this.surface.getBoundingClientRect();
    const w = this.target.offsetWidth * this.scale;
    const h = this.target.offsetHeight * this.scale;
    const mx = Math.max(0, (w - rect.width) / 2);
    const my = Math.max(0, (h - rect.height) / 2);
    this.x = Math.min(mx, Math.max(-mx, this.x));
    this.y = Math.min(my, Math.max(-my, this.y));
  }

  apply() {
    this.target.style.transform = 'translate(' + (this.x + this.swipe) + 'px, ' + this.y + 'px) scale(' + this.scale + ')';
    this.surface.classList.toggle('zoomed', this.zoomed);
    if (this.onScale) this.onScale(this.scale);
  }

  centre(event) {
    const rect = this.surface.getBoundingClientRect();
    return [event.clientX - rect.left - rect.width / 2, event.clientY - rect.top - rect.height / 2];
  }

  wheel(event) {
    if (!this.enabled) return;
    event.preventDefault();
    const [cx, cy] = this.centre(event);
    this.by(Math.exp(-event.deltaY * (event.deltaMode === 1 ? 0.05 : 0.002)), cx, cy);
  }

  doubleClick(event) {
    if (!this.enabled) return;
    const [cx, cy] = this.centre(event);
    this.by(this.zoomed ? 1 / this.scale : 2.5, cx, cy);
  }

  down(event) {
    if (!this.enabled) return;
    if (event.button !== 0 && event.pointerType === 'mouse') return;
    this.surface.setPointerCapture(event.pointerId);
    this.pointers.set(event.pointerId, { x: event.clientX, y: event.clientY });
    this.start = { x: event.clientX, y: event.clientY, px: this.x, py: this.y };
    if (this.pointers.size === 2) {
      const [a, b] = [...this.pointers.values()];
      this.pinch = { distance: Math.hypot(a.x - b.x, a.y - b.y), scale: this.scale };
    }
  }

  move(event) {
    const pointer = this.pointers.get(event.pointerId);
    if (!pointer) return;
    pointer.x = event.clientX;
    pointer.y = event.clientY;
    if (this.pointers.size === 2 && this.pinch) {
      const [a, b] = [...this.pointers.values()];
      const rect = this.surface.getBoundingClientRect();
      const cx = (a.x + b.x) / 2 - rect.left - rect.width / 2;
      const cy = (a.y + b.y) / 2 - rect.top - rect.height / 2;
      const wanted = this.pinch.scale * Math.hypot(a.x - b.x, a.y - b.y) / this.pinch.distance;
      this.by(wanted / this.scale, cx, cy);
    } else if (this.pointers.size === 1) {
      const dx = event.clientX - this.start.x;
      const dy = event.clientY - this.start.y;
      if (this.zoomed) {
        this.x = this.start.px + dx;
        this.y = this.start.py + dy;
        this.clamp();
      } else {
        this.swipe = dx;
      }
      this.apply();
    }
  }

  up(event, cancelled = false) {
    if (!this.pointers.has(event.pointerId)) return;
    this.pointers.delete(event.pointerId);
    if (this.pointers.size < 2) this.pinch = null;
    if (this.pointers.size === 0 && !this.zoomed) {
      const dx = event.clientX - this.start.x;
      const dy = event.clientY - this.start.y;
      this.swipe = 0;
      this.apply();
      if (!cancelled && Math.abs(dx) > SWIPE_DISTANCE && Math.abs(dx) > Math.abs(dy) * 1.5) {
        this.onSwipe(dx < 0 ? 1 : -1);
      }
    } else if (this.pointers.size === 1) {
      const [rest] = [...this.pointers.values()];
      this.start = { x: rest.x, y: rest.y, px: this.x, py: this.y };
    }
  }
}
