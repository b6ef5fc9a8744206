"""What supervisors read about how campaigns and agents are doing."""
