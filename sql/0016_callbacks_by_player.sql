-- A shadow player's figure is asked of the partner with the count of that player's callbacks before and after,
-- and the decision taken with it checks the count again: the figure is used only if no callback was written
-- meanwhile. That count reads this index (the line's partial index holds only undelivered notifications).
CREATE INDEX partner_callbacks_by_player ON partner_callbacks (player_id);
