import { useEffect } from 'react';
import { useNavigate } from 'react-router';
import { setNavigator } from '../lib/navigation';

/** Hands the router's navigate function to code outside React (the API client). */
export function NavigationBridge() {
  const navigate = useNavigate();
  useEffect(() => {
    setNavigator((to, options) => void navigate(to, options));
    return () => setNavigator(null);
  }, [navigate]);
  return null;
}
