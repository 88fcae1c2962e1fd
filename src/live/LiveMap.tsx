import { useEffect, useRef, useState } from 'react';
import type { LivePosition, MapTiles } from './api';
import type { LiveStrings } from './i18n';
import type { LiveMapHandle } from './leaflet-map';

/**
 * The map of the latest position and the recent trail. Leaflet comes in a lazy chunk, so the
 * page itself stays light; where that chunk cannot load the box goes and the coordinates and
 * "Open in maps" buttons remain on their own.
 */
export function LiveMap({
  s,
  tiles,
  position,
  trail,
}: {
  s: LiveStrings;
  tiles: MapTiles;
  position: LivePosition;
  trail: LivePosition[];
}) {
  const box = useRef<HTMLDivElement>(null);
  const [map, setMap] = useState<LiveMapHandle | null>(null);
  const [failed, setFailed] = useState(false);

  const { tile_url, attribution, attribution_url } = tiles;
  useEffect(() => {
    let live = true;
    let created: LiveMapHandle | null = null;
    import('./leaflet-map')
      .then(({ createLiveMap }) => {
        if (!live || !box.current) return;
        created = createLiveMap(box.current, { tile_url, attribution, attribution_url });
        setMap(created);
      })
      .catch(() => {
        if (live) setFailed(true);
      });
    return () => {
      live = false;
      created?.remove();
      setMap(null);
    };
  }, [tile_url, attribution, attribution_url]);

  useEffect(() => {
    map?.show(position, trail);
  }, [map, position, trail]);

  if (failed) return null;
  return (
    <figure className="live-map-figure">
      <div ref={box} className="live-map" data-testid="live-map" data-ready={map ? 'true' : 'false'} />
      <figcaption className="hint">{s.mapCaption}</figcaption>
    </figure>
  );
}
